import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stampede } from '../helpers/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-merge-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('stampede run --segment / --start-at and stampede merge on the command line', () => {
  it('refuses a shared start already past (exit 2), naming it', () => {
    const run = stampede(['run', 'test/fixtures/cli/small.yaml', '--segment', '0/2', '--start-at', '2020-01-01T00:00:00Z', '--out', join(scratch, 'late')]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^stampede: --start-at: 2020-01-01T00:00:00Z is [\d.]+ s in the past/);
  });

  it('merges the segments of one run (exit by its verdict) and refuses segments of two runs (exit 2)', () => {
    const seg = (i: number, seed: string) => join(scratch, `seed-${seed}-${i}`);
    for (const [i, seed] of [
      [0, '42'],
      [1, '42'],
      [1, '43'],
    ] as const) {
      expect(stampede(['run', 'test/fixtures/cli/small.yaml', '--segment', `${i}/2`, '--seed', seed, '--out', seg(i, seed), '--quiet']).status).toBe(0);
    }
    const merged = stampede(['merge', seg(0, '42'), seg(1, '42'), '--out', join(scratch, 'merged'), '--quiet']);
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stdout).toBe(`${join(scratch, 'merged')}\n`);
    const mixed = stampede(['merge', seg(0, '42'), seg(1, '43'), '--out', join(scratch, 'mixed')]);
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toMatch(/^stampede: merge: .* differ in seed \(43 vs 42\): they are not segments of one run\n$/);
  });
});
