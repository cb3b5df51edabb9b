import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { primeOpenLoop, primingRun } from '../../src/driver/prime.ts';
import { createSchedule } from '../../src/schedule/index.ts';
import { MINIMAL_TOPOLOGY, makeProfile } from '../helpers/profile.ts';

/*
 * Priming is only worth its start-up time if the throwaway run goes through every path a real run
 * first takes mid-run: warm-up and measured requests, interval closes, failures, drops at the cap
 * and the drain. And it must touch nothing real.
 */

const dir = mkdtempSync(join(tmpdir(), 'stampede-prime-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const marker = join(dir, 'exec-ran');
const profile = makeProfile({
  name: 'prime',
  warmup: '1s',
  mix: [
    { kind: 'get', weight: 4 },
    { kind: 'set', weight: 1 },
  ],
  clients: [
    { name: 'web', share: 0.7 },
    { name: 'batch', share: 0.3 },
  ],
  phases: [{ type: 'steady', rate: 100, duration: '2s' }],
  topology: { ...MINIMAL_TOPOLOGY, timeline: [{ type: 'exec', at: '0s', command: ['touch', marker] }] },
});
const plan = createSchedule(profile).plan;

describe('JIT priming of the open-loop path', () => {
  it('goes through warm-up and measured requests, interval closes, failures, drops and the drain', async () => {
    const recorder = await primingRun(plan, profile);
    expect(recorder.warmupSent).toBeGreaterThan(0);
    expect(recorder.sentCount).toBeGreaterThan(0);
    expect(recorder.droppedCount).toBeGreaterThan(0);
    expect(recorder.errorCounts[recorder.reasons.indexOf('primed')]).toBeGreaterThan(0);
    expect(recorder.errorCounts[recorder.reasons.indexOf('unfinished')]).toBeGreaterThan(0);
    const intervals = recorder.digest.summary().series;
    expect(intervals.filter((i) => i.warmup).length).toBeGreaterThanOrEqual(2);
    expect(intervals.filter((i) => !i.warmup).length).toBeGreaterThanOrEqual(3);
    // Every client and kind of the real plan is recorded, so the per-slice paths are compiled too.
    expect(recorder.byClient.every((b) => b.ok + b.failed > 0)).toBe(true);
    expect(recorder.byKind.every((b) => b.ok + b.failed > 0)).toBe(true);
  });

  it('never plays the profile timeline (no command runs, no ring changes)', async () => {
    await primingRun(plan, profile);
    expect(existsSync(marker)).toBe(false);
  });

  it('runs once per thread: later runs wait for the same priming', () => {
    const context = { profile, schedule: createSchedule(profile) };
    expect(primeOpenLoop(context)).toBe(primeOpenLoop(context));
  });
});
