import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../../src/interop/k6/stand-in/modules.ts';
import { loadProfile } from '../../../src/profile/load.ts';
import type { Profile } from '../../../src/profile/types.ts';
import { createSchedule, emptyRequest } from '../../../src/schedule/index.ts';
import { hotKeyShare } from '../../../src/schedule/keys.ts';
import { exported, STOREFRONT, scratchDir } from './helpers.ts';

/*
 * The exported script draws what stampede's schedule draws. Every request of the schedule is
 * replayed as one k6 iteration of its client's scenario at its intended time (iterations spread
 * over 8 VUs, as k6 spreads them), against the stand-in k6 modules; the requests the script makes
 * and the schedule's own requests are then two samples of the same laws: the mix per client, Zipf
 * rank frequencies and the top key's share, the hot key's share over time, batch and value sizes.
 * The streams differ (k6 seeds each VU's own), so they agree within sampling error: 4.5 standard
 * deviations of the difference of two proportions. Seeded: the same samples every run.
 */

interface Drawn {
  client: string;
  kind: string;
  keys: string[];
  valueSize: number;
  measuredS: number;
}

const VUS = 8;
const HOT_BUCKET_S = 5;

let profile: Profile;
const fromSchedule: Drawn[] = [];
const fromScript: Drawn[] = [];

// Every request of the schedule is one call into the sandbox, where QuickJS interprets the script
// (a few tenths of a millisecond an iteration): seconds on a quiet machine, more on a busy one.
beforeAll(async () => {
  profile = await loadProfile(STOREFRONT, []);
  const { script } = await exported(profile, scratchDir());
  const schedule = createSchedule(profile);
  const plan = schedule.plan;
  const options = script.exports.options as { scenarios: Record<string, { exec: string; tags: { client: string } }> };
  const scenarios = Object.values(options.scenarios);
  const execOf = (client: string) => script.exports[scenarios.find((s) => s.tags.client === client)!.exec] as () => void;
  const r = emptyRequest();
  while (schedule.next(r)) {
    const client = plan.clients[r.client]!.name;
    const measuredS = (r.intendedAtUs - plan.warmupUs) / 1e6;
    fromSchedule.push({ client, kind: plan.kinds[r.kind]!, keys: [...r.keys].map((id) => plan.keyspace.keyName(id)), valueSize: r.valueSize, measuredS });
    Object.assign(script.clock, { elapsedMs: r.intendedAtUs / 1000, vu: 1 + (r.seq % VUS), iteration: r.seq });
    execOf(client)();
    fromScript.push({ ...sent(script.requests[script.requests.length - 1]!), measuredS });
  }
}, 120_000);

/** What the script sent, read back from the storefront's templates: GET/PUT /items/{{key}}, POST /items with {"keys": [...]}. */
function sent(request: RecordedRequest): Omit<Drawn, 'measuredS'> {
  const tags = request.params!.tags!;
  const keys = request.method === 'POST' ? (JSON.parse(String(request.body)) as { keys: string[] }).keys : [decodeURIComponent(request.url.split('/items/')[1]!)];
  return { client: tags.client!, kind: tags.kind!, keys, valueSize: request.method === 'PUT' ? String(request.body).length : 100 };
}

/** Asserts two sample proportions agree within 4.5 standard deviations of their difference. */
function expectSameShare(what: string, a: { hits: number; n: number }, b: { hits: number; n: number }): void {
  const pa = a.hits / a.n;
  const pb = b.hits / b.n;
  const p = (a.hits + b.hits) / (a.n + b.n);
  const sd = Math.sqrt(p * (1 - p) * (1 / a.n + 1 / b.n));
  expect(Math.abs(pa - pb), `${what}: script ${pa.toFixed(4)} of ${a.n}, schedule ${pb.toFixed(4)} of ${b.n}`).toBeLessThanOrEqual(4.5 * sd + 1e-12);
}

function share(sample: Drawn[], select: (d: Drawn) => boolean): { hits: number; n: number } {
  return { hits: sample.filter(select).length, n: sample.length };
}

const keysIn = (sample: Drawn[], keep: (d: Drawn) => boolean = () => true) => sample.filter(keep).flatMap((d) => d.keys);
const keyShare = (keys: string[], key: string) => ({ hits: keys.filter((k) => k === key).length, n: keys.length });

describe('the exported script draws as the schedule does', () => {
  it('replays every request of the schedule', () => {
    expect(fromScript).toHaveLength(fromSchedule.length);
    expect(fromSchedule.length).toBeGreaterThan(10_000);
    expect(fromScript.map((d) => d.client)).toEqual(fromSchedule.map((d) => d.client));
  });

  it('sends the mix of each client group', () => {
    for (const [client, kind] of [
      ['web', 'get'],
      ['web', 'put'],
      ['batch.api', 'multiget'],
    ] as const) {
      const of = (sample: Drawn[]) =>
        share(
          sample.filter((d) => d.client === client),
          (d) => d.kind === kind,
        );
      expectSameShare(`${client} ${kind}`, of(fromScript), of(fromSchedule));
    }
    const puts = fromScript.filter((d) => d.kind === 'put').length / fromScript.filter((d) => d.client === 'web').length;
    expect(puts).toBeGreaterThan(0.17);
    expect(puts).toBeLessThan(0.23);
  });

  it('draws keys by the same Zipf law: the top key’s share and the frequencies of ranks 1–10', () => {
    // Before the hot key starts, every key follows the popularity law.
    const coldWindow = (d: Drawn) => d.measuredS < 10;
    const script = keysIn(fromScript, coldWindow);
    const schedule = keysIn(fromSchedule, coldWindow);
    for (let rank = 0; rank < 10; rank++) expectSameShare(`rank ${rank + 1}`, keyShare(script, `item:${rank}`), keyShare(schedule, `item:${rank}`));
    // Zipf(0.99) over 100,000 keys: the top key has about 1/H(100000, 0.99) ≈ 8% of draws.
    expect(keyShare(script, 'item:0').hits / script.length).toBeGreaterThan(0.07);
    expect(keyShare(script, 'item:0').hits / script.length).toBeLessThan(0.095);
  });

  it('gives the hot key its share over time: rising, held, halving', () => {
    const buckets = Math.ceil(Math.max(...fromSchedule.map((d) => d.measuredS)) / HOT_BUCKET_S);
    const shares: number[] = [];
    for (let b = -2; b < buckets; b++) {
      const inBucket = (d: Drawn) => d.measuredS >= b * HOT_BUCKET_S && d.measuredS < (b + 1) * HOT_BUCKET_S;
      const script = keyShare(keysIn(fromScript, inBucket), 'item:viral');
      expectSameShare(`hot key in [${b * HOT_BUCKET_S}s, ${(b + 1) * HOT_BUCKET_S}s)`, script, keyShare(keysIn(fromSchedule, inBucket), 'item:viral'));
      shares.push(script.hits / script.n);
    }
    const hot = profile.keys.hot[0]!;
    // Warm-up and the first 10 s: none; at the peak (20–30 s measured), about 30% of draws.
    expect(shares.slice(0, 4).every((s) => s === 0)).toBe(true);
    expect(shares[2 + 5]).toBeGreaterThan(hotKeyShare(hot, 25e6) - 0.03);
    expect(shares[2 + 5]).toBeLessThan(hotKeyShare(hot, 25e6) + 0.03);
  });

  it('sends the same batch and value sizes', () => {
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const batches = (sample: Drawn[]) => sample.filter((d) => d.kind === 'multiget').map((d) => d.keys.length);
    // Uniform 1–50: mean 25.5, standard deviation 14.4.
    const [script, schedule] = [batches(fromScript), batches(fromSchedule)];
    expect(Math.abs(mean(script) - mean(schedule))).toBeLessThan(4.5 * 14.4 * Math.sqrt(1 / script.length + 1 / schedule.length));
    expect(Math.min(...script)).toBe(1);
    expect(Math.max(...script)).toBe(50);
    // Lognormal values (median 2000 B): the share below the median agrees.
    const values = (sample: Drawn[]) => sample.filter((d) => d.kind === 'put').map((d) => d.valueSize);
    const below = (xs: number[]) => ({ hits: xs.filter((x) => x < 2000).length, n: xs.length });
    expectSameShare('values below 2000 B', below(values(fromScript)), below(values(fromSchedule)));
  });
});
