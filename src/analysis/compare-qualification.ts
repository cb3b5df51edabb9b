import { type ComparisonRow, latencyRow } from './compare-rows.ts';
import { type LatencyAtRate, latencyAtRate, rateRange, type RatePoint } from './latency-at-rate.ts';
import { percentileNoise, type RunNoise, widerNoise } from './noise.ts';

const PERCENTILES = [50, 99, 99.9] as const;

/**
 * Two qualifications' latency at one offered rate: the expected peak when both measured around it,
 * else the rate nearest it that both did. Each row names the rate ("p99 at 12000 rps"); the note
 * says which side was interpolated between which steps. No rows when the rates measured do not
 * overlap: latency at different rates is not a change.
 */
export function compareQualificationLatency(
  b: readonly RatePoint[],
  c: readonly RatePoint[],
  peakRps: number | undefined,
  across?: RunNoise,
): { rows: ComparisonRow[]; note: string } {
  const rate = comparedRate(b, c, peakRps);
  if (!rate) return { rows: [], note: 'latency not compared: the two qualifications measured no offered rate in common (no step of one lies within the other’s rates)' };
  const rows: ComparisonRow[] = [];
  let read: { baseline?: LatencyAtRate; candidate?: LatencyAtRate } = {};
  for (const p of PERCENTILES) {
    const at = { baseline: latencyAtRate(b, rate.rps, p), candidate: latencyAtRate(c, rate.rps, p) };
    if (!at.baseline || !at.candidate) continue;
    read = at as typeof read;
    // The curve's own noise (its steps' intervals, its repeats) and the nights', the wider; p99.9 reads p99's curve noise.
    const nights = percentileNoise(across, p);
    const noise = widerNoise(at.baseline.noise, nights.noise);
    const asP99 = p === 99.9 && noise !== across?.p999;
    rows.push(latencyRow(`p${p} at ${Math.round(rate.rps)} rps`, at.baseline.estimate, at.candidate.estimate, noise, asP99));
  }
  const how = (side: string, at: LatencyAtRate | undefined) =>
    !at ? '' : 'rps' in at.from ? `${side} measured there` : `${side} interpolated between its steps at ${Math.round(at.from.lowRps)} and ${Math.round(at.from.highRps)} rps`;
  return {
    rows,
    note: `latency compared at ${Math.round(rate.rps)} rps, ${rate.why} (${how('baseline', read.baseline)}; ${how('candidate', read.candidate)}); the error rate is judged inside the capacity, by each step's SLO`,
  };
}

/** The expected peak, held inside the rates both qualifications measured. */
function comparedRate(b: readonly RatePoint[], c: readonly RatePoint[], peakRps: number | undefined): { rps: number; why: string } | undefined {
  const rb = rateRange(b);
  const rc = rateRange(c);
  if (!rb || !rc) return undefined;
  const low = Math.max(rb.low, rc.low);
  const high = Math.min(rb.high, rc.high);
  if (low > high) return undefined;
  if (peakRps === undefined) return { rps: high, why: 'the highest rate both measured' };
  if (peakRps >= low && peakRps <= high) return { rps: peakRps, why: 'the expected peak' };
  return { rps: Math.min(high, Math.max(low, peakRps)), why: `the rate both measured nearest the expected peak (${Math.round(peakRps)} rps)` };
}
