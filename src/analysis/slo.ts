import type { Slo } from '../profile/schema.ts';
import { formatShare, formatUs } from './format.ts';
import { decodeFromCompressedBase64, type Histogram } from '../recorder/histograms.ts';
import type { RunResult } from '../recorder/result.ts';

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
  /** Nothing was measured to check (`actual` is 0, not a figure): it fails for want of evidence. */
  unmeasured?: true;
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
    if (!h || h.totalCount === 0) return { name, pass: false, actual: 0, limit: rule.max, unit: 'us' as const, note: 'no requests in this slice', unmeasured: true as const };
    const actual = h.getValueAtPercentile(rule.percentile);
    return { name, pass: actual <= rule.max, actual, limit: rule.max, unit: 'us' as const };
  });
  if (slo.errorRate !== undefined) {
    const actual = evidence.requests === 0 ? 0 : evidence.failed / evidence.requests;
    const check: SloCheck = {
      name: `error rate ≤ ${formatShare(slo.errorRate)}`,
      pass: actual <= slo.errorRate && evidence.requests > 0,
      actual,
      limit: slo.errorRate,
      unit: 'ratio',
    };
    if (evidence.requests === 0) Object.assign(check, { note: 'no requests completed', unmeasured: true });
    checks.push(check);
  }
  return { pass: checks.every((c) => c.pass), checks };
}

/** The SLO's evidence read back from a result: the histograms every slice carries, decoded on demand. */
export function sloEvidenceOf(result: RunResult): SloEvidence {
  const decoded = new Map<string, Histogram>();
  const decode = (key: string, encoded: string | undefined): Histogram | undefined => {
    if (encoded === undefined) return undefined;
    let h = decoded.get(key);
    if (!h) decoded.set(key, (h = decodeFromCompressedBase64(encoded) as Histogram));
    return h;
  };
  return {
    latency: ({ kind, client }) => {
      if (kind !== undefined && client !== undefined) return undefined;
      if (kind !== undefined) return decode(`kind:${kind}`, result.byKind[kind]?.histogram);
      if (client !== undefined) return decode(`client:${client}`, result.byClient[client]?.histogram);
      return decode('all', result.histograms.latency);
    },
    requests: result.requests.ok + result.requests.failed + result.requests.dropped,
    failed: result.requests.failed + result.requests.dropped,
  };
}
