import type { TimelineEvent } from '../../profile/topology/index.ts';
import { RunStartError } from '../errors.ts';

/** Servers in the client's ring when the run starts: those the timeline's addShards bring in are the target's last ones and start outside it. */
export function serversInRingAtStart(servers: number, timeline: readonly TimelineEvent[] | undefined): number {
  const added = (timeline ?? []).reduce((n, e) => n + (e.type === 'addShards' ? e.count : 0), 0);
  return Math.max(1, servers - added);
}

/** A connection as a dial failure names it. */
export interface DialedServer {
  readonly host: string;
  readonly port: number;
  readonly lastDialError: string | undefined;
}

/**
 * A target none of whose servers could be dialled says why, server by server (a refused port, an
 * unknown host, a timeout), and what to check: that `server` (memcached, Redis) listens there.
 */
export function withDialFailures(error: unknown, connections: readonly DialedServer[], server: string): unknown {
  if (!(error instanceof RunStartError)) return error;
  const reasons = new Map<string, string>();
  for (const c of connections) if (c.lastDialError !== undefined) reasons.set(`${c.host}:${c.port}`, c.lastDialError);
  if (reasons.size === 0) return error;
  const each = [...reasons].map(([address, reason]) => `on ${address}: ${reason}`).join('; ');
  // As the http driver words it ("; last failure …"), once per server.
  return new RunStartError(`${error.message}; last failure ${each} — is ${server} running and listening there?`);
}
