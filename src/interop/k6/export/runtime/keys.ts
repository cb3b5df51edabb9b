/*
 * The emitted script's key popularity: the same laws as src/schedule/keys.ts (uniform, Zipf,
 * hotspot; named hot keys whose share rises, holds and halves over time), as k6 TypeScript.
 */
export const KEYS_SOURCE = `
/** Share of key draws that go to one hot key, µs after the warm-up ended. */
function hotKeyShare(hot: HotKey, measuredUs: number): number {
  const sinceStart = measuredUs - hot.startUs;
  if (sinceStart < 0) return 0;
  if (sinceStart < hot.riseUs) return (hot.peak * sinceStart) / hot.riseUs;
  const sincePeakEnd = sinceStart - hot.riseUs - hot.holdUs;
  if (sincePeakEnd <= 0 || hot.halfLifeUs === null) return hot.peak;
  return hot.peak * Math.pow(2, -sincePeakEnd / hot.halfLifeUs);
}

/** Draws a key rank (0 = most popular) by the popularity law. */
function popularityDraw(count: number, popularity: Popularity, rng: Rng): () => number {
  switch (popularity.type) {
    case 'uniform':
      return () => Math.floor(rng.next() * count);
    case 'zipf': {
      const zipf = new Zipf(count, popularity.s, rng);
      return () => zipf.next() - 1;
    }
    case 'hotspot': {
      const hotCount = Math.max(1, Math.min(count, Math.ceil(popularity.keyFraction * count)));
      const coldCount = count - hotCount;
      const trafficShare = coldCount === 0 ? 1 : popularity.trafficShare;
      return () => (rng.next() < trafficShare ? Math.floor(rng.next() * hotCount) : hotCount + Math.floor(rng.next() * coldCount));
    }
  }
}

/** One client's key names: a hot key with its current share, else a key by the popularity law. */
class KeyDrawer {
  private readonly popular: () => number;
  private readonly hot: HotKey[];

  constructor(client: string, private readonly rng: Rng) {
    this.popular = popularityDraw(KEYS.count, KEYS.popularity, rng);
    this.hot = KEYS.hot.filter((h) => h.clients === null || h.clients.indexOf(client) >= 0);
  }

  /** The batch's key names at measured time t (µs after the warm-up). */
  draw(batch: number, measuredUs: number): string[] {
    const shares = this.hot.map((h) => hotKeyShare(h, measuredUs));
    const names: string[] = [];
    for (let i = 0; i < batch; i++) names.push(this.drawOne(shares));
    return names;
  }

  private drawOne(shares: number[]): string {
    if (this.hot.length > 0) {
      let u = this.rng.next();
      for (let j = 0; j < shares.length; j++) {
        u -= shares[j];
        if (u < 0) return this.hot[j].key;
      }
    }
    return KEYS.prefix + this.popular();
  }
}
`;
