import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stampede } from '../helpers/cli.ts';

/** The closed-loop realism flag, end to end: a profile with closed-loop users on the model. */
describe('stampede run with closed-loop users', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'stampede-closed-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('is INVALID (exit 1) with the coordinated-omission flag, though its SLO holds', () => {
    const out = join(scratch, 'run');
    const run = stampede(['run', 'test/fixtures/model/closed-loop.yaml', '--out', out]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^# closed-loop: INVALID/);
    expect(run.stdout).toContain('closed-loop load');
    const analysis = JSON.parse(readFileSync(join(out, 'analysis.json'), 'utf8'));
    expect(analysis.slo.pass).toBe(true);
    expect(analysis.flags.find((f: { id: string }) => f.id === 'coordinated-omission')?.severity).toBe('invalid');
    expect(JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')).driver.loop).toBe('closed');
  });
});
