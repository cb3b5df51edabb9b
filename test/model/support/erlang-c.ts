/**
 * M/M/c ground truth: Poisson arrivals (λ), exponential service (μ), c servers, unbounded FIFO
 * queue. Erlang C gives the probability of waiting; the wait of those who wait is Exp(cμ − λ).
 */
export interface MmcTruth {
  /** Probability an arrival waits (Erlang C). */
  waitProbability: number;
  /** Mean wait in queue, in the unit of 1/λ and 1/μ. */
  meanWait: number;
  /** P(T > t) for the response time T = W + S. */
  responseTail(t: number): number;
  /** The p-th percentile of T (p in (0, 100)), by bisection on responseTail. */
  responsePercentile(p: number): number;
}

export function mmc(lambda: number, mu: number, c: number): MmcTruth {
  const a = lambda / mu;
  const rho = a / c;
  if (rho >= 1) throw new Error(`unstable: ρ = ${rho}`);
  // Erlang B by its stable recursion, then Erlang C from it.
  let erlangB = 1;
  for (let k = 1; k <= c; k++) erlangB = (a * erlangB) / (k + a * erlangB);
  const C = erlangB / (1 - rho * (1 - erlangB));
  const theta = c * mu - lambda;
  // W' ~ Exp(θ) plus S ~ Exp(μ): hypoexponential tail.
  const waitedTail = (t: number) => (Math.abs(theta - mu) < 1e-12 * mu ? (1 + mu * t) * Math.exp(-mu * t) : (theta * Math.exp(-mu * t) - mu * Math.exp(-theta * t)) / (theta - mu));
  const responseTail = (t: number) => (1 - C) * Math.exp(-mu * t) + C * waitedTail(t);
  return {
    waitProbability: C,
    meanWait: C / theta,
    responseTail,
    responsePercentile(p) {
      const target = 1 - p / 100;
      let lo = 0;
      let hi = 1 / mu;
      while (responseTail(hi) > target) hi *= 2;
      for (let i = 0; i < 200; i++) {
        const mid = (lo + hi) / 2;
        if (responseTail(mid) > target) lo = mid;
        else hi = mid;
      }
      return (lo + hi) / 2;
    },
  };
}
