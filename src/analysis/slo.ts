import type { Slo } from '../profile/schema.ts';
import type { Histogram } from '../recorder/histograms.ts';

export interface SloCheck {
  /** Human-readable rule, e.g. "p99 ≤ 50ms (kind get)". */
  name: string;
  pass: boolean;
  /** Measured value: µs for latency, a fraction for the error rate. */
  actual: number;
  limit: number;
  unit: 'us' | 'ratio';
  /** Why a check could not pass on evidence, e.g. no requests in its slice. */
  note?: string;
}

export interface SloVerdict {
  pass: boolean;
  checks: SloCheck[];
}

/** The measured traffic an SLO is judged on: histograms by slice and the error count. */
export interface SloEvidence {
  latency(slice: { kind?: string | undefined; client?: string | undefined }): Histogram | undefined;
  requests: number;
  failed: number;
}

/**
 * Judges the SLO. A latency check over an empty slice fails: an SLO with no evidence is not met.
 * Failed requests are in the latency histograms too, so fast errors cannot flatter the tail.
 */
export function evaluateSlo(slo: Slo, evidence: SloEvidence): SloVerdict {
  const checks: SloCheck[] = slo.latency.map((rule) => {
    const scope = [rule.kind && `kind ${rule.kind}`, rule.client && `client ${rule.client}`].filter(Boolean).join(', ');
    const name = `p${rule.percentile} ≤ ${formatUs(rule.max)}${scope ? ` (${scope})` : ''}`;
    const h = evidence.latency({ kind: rule.kind, client: rule.client });
    if (!h || h.totalCount === 0) return { name, pass: false, actual: 0, limit: rule.max, unit: 'us' as const, note: 'no requests in this slice' };
    const actual = h.getValueAtPercentile(rule.percentile);
    return { name, pass: actual <= rule.max, actual, limit: rule.max, unit: 'us' as const };
  });
  if (slo.errorRate !== undefined) {
    const actual = evidence.requests === 0 ? 0 : evidence.failed / evidence.requests;
    const check: SloCheck = { name: `error rate ≤ ${formatRatio(slo.errorRate)}`, pass: actual <= slo.errorRate && evidence.requests > 0, actual, limit: slo.errorRate, unit: 'ratio' };
    if (evidence.requests === 0) check.note = 'no requests completed';
    checks.push(check);
  }
  return { pass: checks.every((c) => c.pass), checks };
}

/** 850 → "850us", 12_500 → "12.5ms", 2_000_000 → "2s". */
export function formatUs(us: number): string {
  if (us < 1000) return `${round3(us)}us`;
  if (us < 1e6) return `${round3(us / 1000)}ms`;
  return `${round3(us / 1e6)}s`;
}

export function formatRatio(r: number): string {
  return `${round3(r * 100)}%`;
}

function round3(x: number): number {
  return Number(x.toPrecision(3));
}
