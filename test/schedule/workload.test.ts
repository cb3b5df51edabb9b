import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hotKeyShare } from '../../src/schedule/keys.ts';
import { createSchedule, emptyRequest } from '../../src/schedule/index.ts';
import { Rng } from '../../src/schedule/rng.ts';
import { createSampler, meanOf } from '../../src/schedule/sample.ts';
import { ZipfSampler } from '../../src/schedule/zipf.ts';
import type { Distribution } from '../../src/profile/distribution.ts';
import type { ProfileInput } from '../../src/profile/schema.ts';
import { makeProfile } from '../helpers/profile.ts';

const seeds = fc.integer({ min: 0, max: 2 ** 31 - 1 });

/** Least-squares slope of log(count) against log(rank). */
function logLogSlope(counts: number[]): number {
  const xs = counts.map((_, i) => Math.log(i + 1));
  const ys = counts.map((c) => Math.log(c));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  const cov = xs.reduce((a, x, i) => a + (x - mx) * (ys[i]! - my), 0);
  return cov / xs.reduce((a, x) => a + (x - mx) ** 2, 0);
}

describe('key popularity', () => {
  it('Zipf rank–frequency slope is −s within 0.05 (top 50 ranks, 10^6 draws)', () => {
    fc.assert(
      fc.property(seeds, fc.constantFrom(0.7, 0.99, 1.2), (seed, s) => {
        const zipf = new ZipfSampler(100_000, s, new Rng(seed));
        const counts = new Array<number>(50).fill(0);
        for (let i = 0; i < 1_000_000; i++) {
          const rank = zipf.next();
          if (rank <= 50) counts[rank - 1]!++;
        }
        expect(Math.abs(logLogSlope(counts) + s)).toBeLessThan(0.05);
      }),
      { numRuns: 4 },
    );
  });

  it('Zipf rank 1 gets 1/H(n,s) of the draws within 2%', () => {
    const n = 1000;
    const s = 1.1;
    const harmonic = Array.from({ length: n }, (_, k) => (k + 1) ** -s).reduce((a, b) => a + b, 0);
    const zipf = new ZipfSampler(n, s, new Rng(7));
    let top = 0;
    for (let i = 0; i < 500_000; i++) if (zipf.next() === 1) top++;
    expect(top / 500_000 / (1 / harmonic)).toBeGreaterThan(0.98);
    expect(top / 500_000 / (1 / harmonic)).toBeLessThan(1.02);
  });

  it('hotspot sends trafficShare of draws to keyFraction of the keys', () => {
    const schedule = createSchedule(
      makeProfile({
        name: 'h',
        phases: [{ type: 'steady', rate: 10_000, duration: '20s' }],
        keys: { count: 10_000, popularity: { type: 'hotspot', keyFraction: 0.01, trafficShare: 0.9 } },
      }),
    );
    const slot = emptyRequest();
    let hot = 0;
    let total = 0;
    while (schedule.next(slot)) {
      total++;
      if (slot.keys[0]! < 100) hot++;
    }
    expect(Math.abs(hot / total - 0.9)).toBeLessThan(0.01);
  });

  it('a viral key rises to its peak in seconds and decays with its half-life', () => {
    const hot = { key: 'tweet:selfie', start: '10s', rise: '4s', peak: 0.4, hold: '2s', halfLife: '5s' };
    const schedule = createSchedule(
      makeProfile({
        name: 'v',
        seed: 3,
        phases: [{ type: 'steady', rate: 20_000, duration: '40s' }],
        keys: { count: 1_000_000, popularity: { type: 'zipf', s: 0.9 }, hot: [hot] },
      }),
    );
    const hotId = schedule.plan.keyspace.count;
    expect(schedule.plan.keyspace.keyName(hotId)).toBe('tweet:selfie');
    const perSecond = new Array<number>(40).fill(0);
    const hits = new Array<number>(40).fill(0);
    const slot = emptyRequest();
    while (schedule.next(slot)) {
      const second = Math.floor(slot.intendedAtUs / 1e6);
      perSecond[second]!++;
      if (slot.keys[0] === hotId) hits[second]!++;
    }
    const spec = makeProfile({ name: 'x', phases: [{ type: 'steady', rate: 1, duration: '1s' }], keys: { count: 1, hot: [hot] } }).keys.hot[0]!;
    for (let second = 0; second < 40; second++) {
      // Average the share over the second (it changes within it), compare with what was drawn.
      const expected = [0.1, 0.3, 0.5, 0.7, 0.9].reduce((a, f) => a + hotKeyShare(spec, (second + f) * 1e6), 0) / 5;
      expect(Math.abs(hits[second]! / perSecond[second]! - expected)).toBeLessThan(0.015);
    }
    expect(hits[5]).toBe(0);
    expect(hits[15]! / perSecond[15]!).toBeGreaterThan(0.38);
    expect(hits[26]! / perSecond[26]!).toBeLessThan(0.11); // two half-lives after the hold
  });
});

describe('sizes', () => {
  it('a 99.99% / 0.01% batch mixture puts its tail at the asked frequency', () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const sample = createSampler(
          {
            type: 'mixture',
            of: [
              { type: 'uniform', min: 1, max: 50, weight: 0.9999 },
              { type: 'uniform', min: 15_000, max: 20_000, weight: 0.0001 },
            ],
          },
          new Rng(seed),
        );
        let huge = 0;
        let outside = 0;
        for (let i = 0; i < 1_000_000; i++) {
          const b = sample();
          if (b >= 15_000 && b <= 20_000) huge++;
          else if (b < 1 || b > 50) outside++;
        }
        expect(outside).toBe(0);
        // Binomial(10^6, 10^-4): mean 100, sd 10; ±4 sd.
        expect(huge).toBeGreaterThan(60);
        expect(huge).toBeLessThan(140);
      }),
      { numRuns: 3 },
    );
  });

  it('lognormal, exponential, empirical and uniform samplers have the asked mean', () => {
    const rng = new Rng(11);
    const cases: Distribution[] = [
      { type: 'lognormal', median: 1000, sigma: 0.8 },
      { type: 'exponential', mean: 5000 },
      {
        type: 'empirical',
        values: [
          { value: 100, weight: 3 },
          { value: 4000, weight: 1 },
        ],
      },
      { type: 'uniform', min: 10, max: 20 },
    ];
    for (const d of cases) {
      const sample = createSampler(d, rng);
      let sum = 0;
      for (let i = 0; i < 200_000; i++) sum += sample();
      expect(Math.abs(sum / 200_000 / meanOf(d) - 1)).toBeLessThan(0.02);
    }
  });
});

describe('determinism', () => {
  const input: Omit<ProfileInput, 'topology'> = {
    name: 'd',
    phases: [{ type: 'spike', base: 500, peak: 3000, rise: '1s', hold: '1s', decay: '1s' }],
    mix: [
      { kind: 'get', weight: 9, batch: { type: 'uniform', min: 1, max: 50 } },
      { kind: 'set', weight: 1, valueSize: { type: 'lognormal', median: 500, sigma: 1 } },
    ],
    keys: { count: 50_000, popularity: { type: 'zipf', s: 1 } },
    clients: [
      { name: 'a', share: 1 },
      { name: 'b', rate: 50 },
    ],
  };

  function fingerprint(seed: number): string {
    const schedule = createSchedule(makeProfile({ ...input, seed }));
    const slot = emptyRequest();
    let hash = 0;
    let n = 0;
    const mix = (v: number) => (hash = Math.imul(hash ^ v, 0x01000193) >>> 0);
    while (schedule.next(slot)) {
      n++;
      [slot.intendedAtUs, slot.client, slot.kind, slot.batchSize, slot.valueSize, ...slot.keys].forEach(mix);
    }
    return `${n}:${hash}`;
  }

  it('the same seed gives the same requests; another seed does not', () => {
    expect(fingerprint(5)).toBe(fingerprint(5));
    expect(fingerprint(5)).not.toBe(fingerprint(6));
  });

  it('adding a client does not change the requests of the others', () => {
    const keysOfA = (clients: typeof input.clients) => {
      const schedule = createSchedule(makeProfile({ ...input, clients }));
      const slot = emptyRequest();
      const out: number[] = [];
      while (schedule.next(slot)) if (slot.client === 0) out.push(slot.intendedAtUs, slot.keys[0]!);
      return out;
    };
    expect(
      keysOfA([
        { name: 'a', share: 1 },
        { name: 'b', rate: 50 },
      ]),
    ).toEqual(
      keysOfA([
        { name: 'a', share: 1 },
        { name: 'c', rate: 400 },
        { name: 'b', rate: 50 },
      ]),
    );
  });
});

describe('TTLs of writes', () => {
  const base: ProfileInput = {
    name: 'ttl',
    phases: [{ type: 'steady', rate: 2000, duration: '10s' }],
    keys: { count: 1000, popularity: { type: 'zipf', s: 1 } },
    valueSize: { type: 'exponential', mean: 300 },
    mix: [
      { kind: 'get', weight: 8 },
      { kind: 'set', weight: 2 },
    ],
  };
  const requests = (input: ProfileInput) => {
    const schedule = createSchedule(makeProfile(input));
    const out: { kind: string; t: number; size: number; key: number; ttlUs: number }[] = [];
    const r = emptyRequest();
    while (schedule.next(r)) out.push({ kind: schedule.plan.kinds[r.kind]!, t: r.intendedAtUs, size: r.valueSize, key: r.keys[0]!, ttlUs: r.ttlUs });
    return out;
  };

  it('each write of a kind with a ttl carries one drawn from it; other kinds carry none; no other draw of the schedule moves', () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const without = requests({ ...base, seed });
        const withTtl = requests({
          ...base,
          seed,
          mix: [
            { kind: 'get', weight: 8 },
            {
              kind: 'set',
              weight: 2,
              ttl: {
                type: 'empirical',
                values: [
                  { value: '300s', weight: 3 },
                  { value: '1h', weight: 1 },
                ],
              } as never,
            },
          ],
        });
        expect(withTtl.map(({ ttlUs: _, ...r }) => r)).toEqual(without.map(({ ttlUs: _, ...r }) => r));
        expect(without.every((r) => r.ttlUs === 0)).toBe(true);
        const sets = withTtl.filter((r) => r.kind === 'set');
        expect(withTtl.filter((r) => r.kind === 'get').every((r) => r.ttlUs === 0)).toBe(true);
        expect(new Set(sets.map((r) => r.ttlUs))).toEqual(new Set([300e6, 3600e6]));
        // 3:1 over ~4,000 sets: the 300 s share within 4 binomial standard deviations of 75%.
        const short = sets.filter((r) => r.ttlUs === 300e6).length / sets.length;
        expect(Math.abs(short - 0.75)).toBeLessThan(4 * Math.sqrt((0.75 * 0.25) / sets.length));
      }),
      { numRuns: 5 },
    );
  });
});

describe('one-hit wonders (keys.oneHitWonders)', () => {
  const keysOf = (oneHitWonders?: number) => {
    const profile = makeProfile({
      name: 'once',
      phases: [{ type: 'steady', rate: 1000, duration: 10 }],
      keys: { count: 500, popularity: { type: 'zipf', s: 1 }, ...(oneHitWonders !== undefined ? { oneHitWonders } : {}) },
    });
    const schedule = createSchedule(profile);
    const request = emptyRequest();
    const out: { key: number; atUs: number; name: string }[] = [];
    while (schedule.next(request)) out.push({ key: request.keys[0]!, atUs: request.intendedAtUs, name: schedule.plan.keyspace.keyName(request.keys[0]!) });
    return out;
  };

  it('that share of requests goes to keys never seen before or again, named <prefix>once:<n>; every other draw is the one the profile made without them', () => {
    const without = keysOf();
    const withOnce = keysOf(0.25);
    // Arrivals and the popular keys' own stream are untouched: the same times, the same popular keys in the same order.
    expect(withOnce.map((r) => r.atUs)).toEqual(without.map((r) => r.atUs));
    const popular = withOnce.filter((r) => r.key < 500).map((r) => r.key);
    expect(popular).toEqual(without.map((r) => r.key).slice(0, popular.length));
    const once = withOnce.filter((r) => r.key >= 500);
    expect(Math.abs(once.length / withOnce.length - 0.25)).toBeLessThan(0.02);
    expect(new Set(once.map((r) => r.key)).size).toBe(once.length);
    expect(once.every((r) => /^key:once:\d+$/.test(r.name))).toBe(true);
  });
});
