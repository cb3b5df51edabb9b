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
 * fixed-point iteration (it converges in a few steps: the correction is small beside the share).
 */
export function fitOneHitWonders(singletons: number, distinct: number, requests: number, s: number): OneHitWonderFit {
  if (singletons <= 0 || requests <= 0) return { share: 0, keys: distinct };
  let share = singletons / requests;
  for (let i = 0; i < 20; i++) {
    const once = Math.round(share * requests);
    const keys = Math.max(1, distinct - once);
    const expected = zipfSingletons(keys, s, requests - once);
    const next = Math.min(1, Math.max(0, (singletons - expected) / requests));
    if (Math.abs(next - share) < 1e-6) break;
    share = next;
  }
  return { share, keys: Math.max(1, distinct - Math.round(share * requests)) };
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
