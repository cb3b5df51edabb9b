import { describe, expect, it } from 'vitest';
import { evaluateSlo } from '../../src/analysis/slo.ts';
import { verdictReasons } from '../../src/analysis/verdict.ts';

/* A check with nothing to measure fails, and says it was not measured: "measured 0us > 50ms" read as a fast run. */

describe('an SLO check over no requests', () => {
  it('fails as not measured, with no figure', () => {
    const slo = evaluateSlo({ latency: [{ percentile: 99, max: 50_000 }], errorRate: 0.01 }, { latency: () => undefined, requests: 0, failed: 0 });
    expect(slo.checks.map((c) => [c.pass, c.unmeasured])).toEqual([
      [false, true],
      [false, true],
    ]);
    expect(verdictReasons('FAIL', slo, [], false)).toEqual([
      'p99 ≤ 50ms: not measured (no requests in this slice), so it cannot pass',
      'error rate ≤ 1%: not measured (no requests completed), so it cannot pass',
    ]);
  });
});
