import { TargetError } from '../target.ts';

/** A server a target names: host (canonical, see canonicalHost) and port. */
export interface ServerAddress {
  host: string;
  port: number;
}

/** A TCP port as written in a target. @throws TargetError out of 1–65535 */
export function portOf(text: string, digits: string): number {
  const port = Number(digits);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new TargetError(text, `port ${digits} is out of range 1–65535`);
  return port;
}

/** Counts by name added over several reports (status codes, server errors). */
export function addCounts(all: readonly Readonly<Record<string, number>>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const counts of all) for (const [k, n] of Object.entries(counts)) out[k] = (out[k] ?? 0) + n;
  return out;
}

/** One figure summed over reports. */
export function sumOf<R>(reports: readonly R[], figure: (r: R) => number): number {
  return reports.reduce((a, r) => a + figure(r), 0);
}
