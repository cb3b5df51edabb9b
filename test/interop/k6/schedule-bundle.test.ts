import releaseSyncModule from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, type QuickJSSyncVariant } from 'quickjs-emscripten-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Distribution } from '../../../src/profile/distribution.ts';
import type { Popularity } from '../../../src/profile/schema.ts';
import { exportK6Script } from '../../../src/interop/k6/export/index.ts';
import { BUNDLE_GLOBAL, scheduleBundle } from '../../../src/interop/k6/export/runtime/schedule-bundle.ts';
import { createKeyspace, KeyDrawer } from '../../../src/schedule/keys.ts';
import { deriveSeed, Rng } from '../../../src/schedule/rng.ts';
import { createSampler, cumulativePicker } from '../../../src/schedule/sample.ts';
import { EVERY_LAW } from './helpers.ts';

/*
 * The script's schedule code is the schedule's: the bundle the exported script embeds, run in a
 * JavaScript engine of its own (QuickJS, as the k6 stand-in runs scripts), draws exactly what
 * src/schedule draws in Node from the same seeds: every distribution kind, the weighted pick, each
 * popularity law, hot keys rising, held and halving, and the key names.
 */

type Modules = {
  Rng: typeof Rng;
  deriveSeed: typeof deriveSeed;
  createSampler: typeof createSampler;
  cumulativePicker: typeof cumulativePicker;
  KeyDrawer: typeof KeyDrawer;
  createKeyspace: typeof createKeyspace;
};

/** The draws both engines make; plain JavaScript once transpiled, so the engine under test runs the same text. */
function draws(m: Modules): Record<string, unknown[]> {
  const DRAWS = 3000;
  const stream = (label: string) => new m.Rng(m.deriveSeed(20_260_312, label));
  const repeat = <T>(draw: () => T) => Array.from({ length: DRAWS }, draw);
  const distributions = {
    fixed: { type: 'fixed', value: 7.4 },
    uniform: { type: 'uniform', min: 1, max: 50 },
    exponential: { type: 'exponential', mean: 400, max: 2000 },
    lognormal: { type: 'lognormal', median: 2000, sigma: 1.2, min: 10 },
    empirical: {
      type: 'empirical',
      values: [
        { value: 10, weight: 3 },
        { value: 100, weight: 1 },
        { value: 1000.4, weight: 0.5 },
      ],
    },
    mixture: {
      type: 'mixture',
      of: [
        { type: 'fixed', value: 5, weight: 1 },
        { type: 'lognormal', median: 300, sigma: 0.5, weight: 2 },
      ],
    },
  } satisfies Record<string, Distribution>;
  const uint32 = stream('uint32');
  const out: Record<string, unknown[]> = {
    seeds: ['requests:web:vu1', 'keys:batch.api:vu8', ''].map((label) => m.deriveSeed(9_007_199_254_740_991, label)),
    uint32: repeat(() => uint32.nextUint32()),
    pick: repeat(m.cumulativePicker([0.7, 0.2, 0.1], stream('pick'))),
  };
  for (const [name, d] of Object.entries(distributions)) out[name] = repeat(m.createSampler(d, stream(name)));
  const hot = [
    { key: 'viral', start: 1e6, rise: 2e6, peak: 0.3, hold: 1e6, halfLife: 1e6 },
    { key: 'only-b', start: 0, rise: 1, peak: 0.5, hold: 0, clients: ['b'] },
  ];
  const popularities = { uniform: { type: 'uniform' }, zipf: { type: 'zipf', s: 0.99 }, hotspot: { type: 'hotspot', keyFraction: 0.1, trafficShare: 0.9 } } satisfies Record<
    string,
    Popularity
  >;
  for (const [name, popularity] of Object.entries(popularities)) {
    const keys = { count: 100_000, prefix: 'item:', popularity, hot };
    const names = m.createKeyspace(keys);
    for (const client of ['a', 'b']) {
      const drawer = new m.KeyDrawer(keys, client, stream(`keys:${name}:${client}`));
      let measuredUs = 0;
      out[`${name}:${client}`] = repeat(() => {
        drawer.prepare((measuredUs += 2000));
        return names.keyName(drawer.draw());
      });
    }
  }
  // One-hit wonders: their own stream decides which requests are one; their ids follow the keyspace's.
  const onceKeys = { count: 1000, prefix: 'item:', popularity: { type: 'zipf' as const, s: 0.99 }, hot: [], oneHitWonders: 0.3 };
  const onceNames = m.createKeyspace(onceKeys);
  const onceDrawer = new m.KeyDrawer(onceKeys, 'a', stream('keys:once'), stream('once:a'));
  out['oneHitWonders'] = repeat(() => {
    onceDrawer.prepare(0);
    return onceNames.keyName(onceDrawer.draw());
  });
  return out;
}

let fromBundle: Record<string, unknown[]>;

beforeAll(async () => {
  const quickjs = await newQuickJSWASMModuleFromVariant(releaseSyncModule as unknown as QuickJSSyncVariant);
  const text = quickjs.evalCode(`${scheduleBundle()}\nJSON.stringify((${draws.toString()})(${BUNDLE_GLOBAL}))`);
  fromBundle = JSON.parse(text as string);
});

describe('the schedule bundle of the exported k6 script', () => {
  it('draws exactly what the schedule draws, in another engine', () => {
    const fromSchedule = draws({ Rng, deriveSeed, createSampler, cumulativePicker, KeyDrawer, createKeyspace });
    expect(Object.keys(fromBundle)).toEqual(Object.keys(fromSchedule));
    for (const [what, values] of Object.entries(fromSchedule)) expect(fromBundle[what], what).toEqual(values);
    // Draws that exercise every branch: the hot keys show up, for client b its own one too.
    expect(fromSchedule['zipf:a']).toContain('viral');
    expect(fromSchedule['zipf:b']).toContain('only-b');
    expect((fromSchedule['oneHitWonders'] as string[]).filter((k) => k.startsWith('item:once:')).length).toBeGreaterThan(0);
    expect(fromSchedule['zipf:a']).not.toContain('only-b');
  });

  it('is what the exported script embeds, and the script draws with nothing else', () => {
    const script = exportK6Script(EVERY_LAW);
    expect(script).toContain(`\n${scheduleBundle()}\n`);
    // One line, all of it under the script's @ts-ignore; no file name or path of the machine that exported it.
    expect(scheduleBundle()).not.toContain('\n');
    expect(scheduleBundle()).not.toContain(process.cwd());
    expect(scheduleBundle()).not.toMatch(/schedule\/\w+\.(ts|js)/);
    const outsideBundle = script.replace(scheduleBundle(), '');
    for (const copied of ['class Rng', 'nextUint32', 'ZipfSampler', 'Math.imul', 'Math.log', 'standardNormal', 'hotKeyShare']) expect(outsideBundle).not.toContain(copied);
  });
});
