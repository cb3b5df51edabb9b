/*
 * One-hit wonders as a profile's `keys.oneHitWonders`. The trace publishes them per key (the share
 * of distinct keys asked for exactly once); the profile needs a share of requests. A one-hit-wonder
 * key is one request, so the singletons are singletons / requests of the requests — except that a
 * Zipf keyspace's own tail also leaves keys asked for once, which the fitted law will draw again by
 * itself. Those expected singletons are taken out first, so the round trip keeps the share.
 */

export interface OneHitWonderFit {
  /** Share of requests to keys asked for once (keys.oneHitWonders). */
  share: number;
  /** Keys left to the popularity law (the distinct keys less the one-hit wonders). */
  keys: number;
}

/**
 * `singletons` keys of `distinct` were asked for once in `requests`; the rest follow Zipf(`s`) over
 * the keys left. Solves share = (singletons − the Zipf part's expected singletons) / requests by
 * fixed-point iteration (it converges in a few steps: the correction is small beside the share),
 * the Zipf part's ranks being those that would show its seen keys (a tail goes partly unseen).
 */
export function fitOneHitWonders(singletons: number, distinct: number, requests: number, s: number): OneHitWonderFit {
  if (singletons <= 0 || requests <= 0) return { share: 0, keys: distinct };
  let share = singletons / requests;
  for (let i = 0; i < 12; i++) {
    const once = Math.round(share * requests);
    const seen = Math.max(1, distinct - once);
    const draws = requests - once;
    // The law's ranks: more than the keys it was seen to draw (its tail is partly unseen), as many as draw that many distinct keys.
    const ranks = lawRanks(seen, s, draws);
    const next = Math.min(1, Math.max(0, (singletons - zipfSingletons(ranks, s, draws)) / requests));
    if (Math.abs(next - share) < 1e-5) {
      share = next;
      break;
    }
    share = next;
  }
  return { share, keys: Math.max(1, distinct - Math.round(share * requests)) };
}

/** Above this many keys the unseen tail is not solved for (each step sums over every rank): the seen keys stand for the law's ranks. */
const MAX_SOLVED_RANKS = 200_000;

/** The Zipf(s) rank count whose `draws` draws hit `seen` distinct keys on average (bisection on the count). */
export function lawRanks(seen: number, s: number, draws: number): number {
  if (seen >= draws || seen > MAX_SOLVED_RANKS) return seen;
  let lo = seen;
  let hi = seen * 16;
  if (zipfDistinct(hi, s, draws) < seen) return hi;
  for (let i = 0; i < 24 && hi - lo > 1; i++) {
    const mid = Math.floor((lo + hi) / 2);
    if (zipfDistinct(mid, s, draws) < seen) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Expected distinct keys `draws` draws of Zipf(s) over `keys` ranks hit: Σ 1 − (1−p)^n. */
export function zipfDistinct(keys: number, s: number, draws: number): number {
  let norm = 0;
  for (let k = 1; k <= keys; k++) norm += k ** -s;
  let sum = 0;
  for (let k = 1; k <= keys; k++) sum += -Math.expm1(draws * Math.log1p(-(k ** -s) / norm));
  return sum;
}

/** Expected keys drawn exactly once when `draws` draws follow Zipf(s) over `keys` ranks: Σ n·p(1−p)^(n−1). */
export function zipfSingletons(keys: number, s: number, draws: number): number {
  if (draws <= 0) return 0;
  let norm = 0;
  for (let k = 1; k <= keys; k++) norm += k ** -s;
  let sum = 0;
  for (let k = 1; k <= keys; k++) {
    const p = k ** -s / norm;
    sum += draws * p * Math.exp((draws - 1) * Math.log1p(-p));
  }
  return sum;
}
