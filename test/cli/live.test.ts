import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, repoRoot, stampede } from '../helpers/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-live-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const PROFILE = 'test/fixtures/cli/small.yaml';
/** A status line: `2s/2.5s (80%, ETA 1s) measured · asked 4,000 rps · …`. */
const STATUS =
  /^(step \d+ · )?[\d.]+s\/[\d.]+s \(\d+%(, ETA (\d+s|\d+m\d\ds|\d+h\d\dm))?\) (warm-up|measured|drain) · asked [\d,.]+ rps · sent [\d,.]+ rps · in flight \d+ · dropped \d+ · p50 \S+ p99 \S+ · errors /;

/**
 * The CLI under a pseudo-terminal (util-linux `script`), so stderr is a TTY, 200 columns wide so the
 * status line is not cut; returns what the terminal received.
 */
function inTerminal(args: string[]): { status: number | null; output: string } {
  const command = `stty cols 200 && ${['node', CLI_ENTRY, ...args].join(' ')}`;
  const child = spawnSync('script', ['-qfec', command, '/dev/null'], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  return { status: child.status, output: child.stdout };
}

describe('live progress of a run', () => {
  it('in a terminal, rewrites one status line in place and clears it before the summary', () => {
    const out = join(scratch, 'tty');
    const run = inTerminal(['run', PROFILE, '--out', out]);
    expect(run.status).toBe(0);
    const [live, summary] = run.output.split('# small: PASS');
    expect(summary).toBeDefined();
    const drawn = live!.split('\r\x1b[2K').filter(Boolean);
    expect(drawn.length).toBeGreaterThanOrEqual(1);
    for (const line of drawn) expect(line).toMatch(STATUS);
    expect(live).not.toContain('\n');
  });

  it('without a terminal, --progress prints one plain line per interval', () => {
    const out = join(scratch, 'plain');
    const run = stampede(['run', PROFILE, '--out', out, '--progress']);
    expect(run.status).toBe(0);
    const intervals = readFileSync(join(out, 'intervals.jsonl'), 'utf8').split('\n').filter(Boolean);
    const lines = run.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(intervals.length);
    for (const line of lines) expect(line).toMatch(STATUS);
    expect(lines[0]).toContain('warm-up');
    expect(run.stderr).not.toContain('\r');
    // % complete rises with the run; the ETA appears once there is a pace (the second interval) and goes while the run drains.
    const percents = lines.map((l) => Number(/\((\d+)%/.exec(l)![1]));
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(percents[0]).toBe(40);
    expect(lines[0]).not.toContain('ETA');
    expect(lines[1]).toMatch(/^2s\/2\.5s \(80%, ETA \d+s\) measured · /);
  });

  it('without a terminal prints nothing by default, and --quiet silences --progress', () => {
    const plain = stampede(['run', PROFILE, '--out', join(scratch, 'silent')]);
    expect(plain.status).toBe(0);
    expect(plain.stderr).toBe('');
    const quiet = stampede(['run', PROFILE, '--out', join(scratch, 'quiet'), '--progress', '--quiet']);
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it('qualify prints the live line within each step and a line per step', () => {
    const q = stampede(['qualify', PROFILE, '--out', join(scratch, 'q'), '--step', '1s', '--warmup', '0', '--max-steps', '2', '--progress']);
    // Two passing steps find no capacity limit: the verdict is not what this test is about.
    expect([0, 1]).toContain(q.status);
    const lines = q.stderr.split('\n').filter(Boolean);
    expect(lines.filter((l) => /^step 1 · /.test(l)).length).toBeGreaterThanOrEqual(1);
    for (const l of lines.filter((l) => / · asked /.test(l))) expect(l).toMatch(STATUS);
    expect(lines.filter((l) => /^step \d+: \d+ rps → p99 /.test(l))).toHaveLength(2);
  });

  it('sweep prints a line per point', () => {
    const s = stampede(['sweep', PROFILE, '--vary', 'phases[0].rate=1000,2000', '--parallel', '1', '--progress']);
    expect(s.status).toBe(0);
    expect(s.stderr.split('\n').filter(Boolean)).toEqual([
      'sweep: running the grid (Ctrl-C stops it and prints the points done)',
      'point 1/2: phases[0].rate=1000 recovered 100.0%',
      'point 2/2: phases[0].rate=2000 recovered 100.0%',
    ]);
  });
});

describe('--metrics-port refusals', () => {
  it('refuses a metrics host that is not loopback (exit 2) and a port in use (exit 3), before the run starts', async () => {
    const remote = stampede(['run', PROFILE, '--out', join(scratch, 'remote'), '--metrics-port', '9464', '--metrics-host', '0.0.0.0']);
    expect(remote.status).toBe(2);
    expect(remote.stderr).toContain('--metrics-host');
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const busy = stampede(['run', PROFILE, '--out', join(scratch, 'busy'), '--metrics-port', String(port)]);
      expect(busy.status).toBe(3);
      expect(busy.stderr).toContain('could not start: metrics on 127.0.0.1');
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});
