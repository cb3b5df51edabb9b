import { describe, expect, it } from 'vitest';
import { readLatencyLogColumns } from '../../src/recorder/latency-log.ts';
import { RunRecorder } from '../../src/recorder/run-recorder.ts';
import { createSchedule } from '../../src/schedule/index.ts';
import { makeProfile } from '../helpers/profile.ts';

async function* linesOf(text: string): AsyncGenerator<string> {
  for (const line of text.split('\n')) yield line;
}

describe('latency.hlog read as it streams', () => {
  it('sums neighbouring intervals into columns, keeping every count and each column’s start', async () => {
    const plan = createSchedule(makeProfile({ name: 'log', phases: [{ type: 'steady', rate: 100, duration: '3s' }] } as never)).plan;
    let log = '';
    const recorder = new RunRecorder(plan, { intervalUs: 100_000, hlog: (chunk) => (log += chunk), startTimeMs: 1_700_000_000_000 });
    let recorded = 0;
    // 2,500 intervals: more than one batch of lines; each interval gets one completion.
    for (let i = 0; i < 2500; i++) {
      const at = i * 100_000 + 50_000;
      recorder.sent(at, at, 0);
      recorder.complete(at, at, at + 100 + (i % 50), 0, 0, 0);
      recorded++;
    }
    recorder.flush();
    const columns = await readLatencyLogColumns(linesOf(log), 7);
    expect(columns).toHaveLength(Math.ceil(2500 / 7));
    expect(columns.map((c) => c.tMs).slice(0, 3)).toEqual([0, 700, 1400]);
    expect(columns.reduce((sum, c) => sum + c.counts.reduce((s, [, n]) => s + n, 0), 0)).toBe(recorded);
  });
});
