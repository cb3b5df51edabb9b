import type { Snapshot } from './compare.ts';
import { errorRateAtRate, latencyAtRate } from './latency-at-rate.ts';
import { nightsNoise, type RunNoise } from './noise.ts';

/** The most recent nights a history's noise estimate reads: older ones may be of another build. */
export const NOISE_NIGHTS = 30;

/**
 * The run-to-run noise across a profile's comparable nights so far (oldest first), figure by
 * figure: a run's whole-window percentiles and error rate, a qualification's at its expected peak.
 * Undefined figures before MIN_NIGHTS nights. Pure.
 */
export function acrossNights(nights: readonly Snapshot[]): RunNoise {
  const recent = nights.slice(-NOISE_NIGHTS);
  const series = (pick: (s: Snapshot) => number | undefined) => recent.map(pick).filter((v): v is number => v !== undefined);
  return {
    p50: nightsNoise(
      series((s) => latencyOf(s, 50)),
      true,
    ),
    p99: nightsNoise(
      series((s) => latencyOf(s, 99)),
      true,
    ),
    p999: nightsNoise(
      series((s) => latencyOf(s, 99.9)),
      true,
    ),
    errorRate: nightsNoise(series(errorRateOf), false),
  };
}

function latencyOf(s: Snapshot, percentile: 50 | 99 | 99.9): number | undefined {
  if (s.curve && s.expectedPeakRps !== undefined) return latencyAtRate(s.curve, s.expectedPeakRps, percentile)?.estimate.valueUs;
  return s.latency && s.latency.totalCount > 0 ? s.latency.getValueAtPercentile(percentile) : undefined;
}

function errorRateOf(s: Snapshot): number | undefined {
  if (s.curve && s.expectedPeakRps !== undefined) return errorRateAtRate(s.curve, s.expectedPeakRps);
  return s.requests.total > 0 ? s.requests.failed / s.requests.total : undefined;
}
