import { describe, expect, it } from 'vitest';
import { mmc } from './support/erlang-c.ts';
import { mg1MeanWait } from './support/pollaczek-khinchine.ts';
import { runModel } from './support/run.ts';

/**
 * The model against M/M/c ground truth (Erlang C) through the real schedule: Poisson arrivals,
 * exponential service (mean 1 ms), c workers, unbounded FIFO queue. Sizes were chosen by running
 * seeds 1..5 (errors below): heavy traffic needs far more requests for the same precision, since
 * the queue's relaxation time grows like 1/(1−√ρ)²; more workers at ρ = 0.95 keep the tail estimate
 * steady.
 */
const CASES = [
  // seeds 1..5 measured: Wq error −1.5…+1.0 %, p99 error −0.9…+0.6 %
  { rho: 0.5, c: 2, requests: 1_000_000 },
  // seeds 1..5 measured: Wq error −2.0…+1.0 %, p99 error −2.0…+1.0 %
  { rho: 0.8, c: 4, requests: 2_000_000 },
  // seeds 1..3 measured: Wq error −1.3…+0.7 %, p99 error −0.3…+2.4 %
  { rho: 0.95, c: 16, requests: 12_000_000 },
];
const SERVICE_MEAN_US = 1000;

describe('M/M/c ground truth', () => {
  for (const { rho, c, requests } of CASES) {
    it(`ρ = ${rho}, c = ${c}: mean wait and p99 response time within 5% of Erlang C`, { timeout: 120_000 }, async () => {
      const lambdaRps = (rho * c * 1e6) / SERVICE_MEAN_US;
      const { details, recorder } = await runModel({
        seed: 1,
        arrivals: 'poisson',
        phases: [{ type: 'steady', rate: lambdaRps, duration: Math.round(requests / lambdaRps) }],
        topology: { entry: 'mmc', services: { mmc: { workers: c, serviceTime: { type: 'exponential', mean: '1ms' } } } },
      });
      const truth = mmc(lambdaRps / 1e6, 1 / SERVICE_MEAN_US, c);
      const wq = details.services['mmc']!.meanQueueWaitUs;
      const p99 = recorder.percentile(99);
      expect(details.requests.started).toBeGreaterThan(requests * 0.99);
      expect(Math.abs(wq / truth.meanWait - 1)).toBeLessThan(0.05);
      expect(Math.abs(p99 / truth.responsePercentile(99) - 1)).toBeLessThan(0.05);
      // Little's law for the whole system: L = λ (Wq + 1/μ).
      expect(details.littlesLaw.inSystemMean / ((lambdaRps / 1e6) * (truth.meanWait + SERVICE_MEAN_US))).toBeCloseTo(1, 1);
    });
  }

  it('the Erlang C helper matches textbook values', () => {
    // M/M/1: P(wait) = ρ, Wq = ρ/(μ−λ); M/M/2 at a = 1: C = 1/3.
    const m1 = mmc(0.5, 1, 1);
    expect(m1.waitProbability).toBeCloseTo(0.5, 12);
    expect(m1.meanWait).toBeCloseTo(1, 12);
    // M/M/1 response time is Exp(μ−λ): p99 = ln(100)/(μ−λ)
    expect(m1.responsePercentile(99)).toBeCloseTo(Math.log(100) / 0.5, 6);
    expect(mmc(1, 1, 2).waitProbability).toBeCloseTo(1 / 3, 12);
  });
});

/**
 * The model against M/D/1 (a fixed 1 ms service time): the Pollaczek–Khinchine mean wait, half
 * M/M/1's at the same ρ, since a fixed service time has E[S²] = E[S]² where an exponential one has
 * 2 E[S]².
 */
describe('M/D/1 ground truth', () => {
  // seeds 1..3 measured: Wq error −0.5…+0.1 %
  it('ρ = 0.8: mean wait within 5% of Pollaczek–Khinchine (1/2 of M/M/1’s)', { timeout: 120_000 }, async () => {
    const rho = 0.8;
    const lambdaRps = (rho * 1e6) / SERVICE_MEAN_US;
    const { details } = await runModel({
      seed: 1,
      arrivals: 'poisson',
      phases: [{ type: 'steady', rate: lambdaRps, duration: 2_000_000 / lambdaRps }],
      topology: { entry: 'md1', services: { md1: { workers: 1, serviceTime: { type: 'fixed', value: '1ms' } } } },
    });
    const truth = mg1MeanWait(lambdaRps / 1e6, SERVICE_MEAN_US, SERVICE_MEAN_US ** 2);
    expect(truth).toBeCloseTo(mmc(lambdaRps / 1e6, 1 / SERVICE_MEAN_US, 1).meanWait / 2, 6);
    expect(Math.abs(details.services['md1']!.meanQueueWaitUs / truth - 1)).toBeLessThan(0.05);
  });
});
