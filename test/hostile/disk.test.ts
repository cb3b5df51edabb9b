import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, repoRoot, stampede } from '../helpers/cli.ts';
import { Disks, fillDisk, PAGE, pages } from '../helpers/tmpfs.ts';

/*
 * Disk full at the end (issue 19): a disk that fills at each point of a run and of a qualification
 * — before the run, during the logs, exactly at result.json, at the HTML report — and under every
 * other command that writes. Each case: exit 3; the last line on the terminal names every file not
 * saved and why (and only those); the verdict line still says what was measured; result.json, when
 * there, parses and names only files that are there.
 *
 * The model is deterministic, so a reference run on an ordinary disk tells the size of every file;
 * each tmpfs is sized from those, in the pages a tmpfs counts, to fill at the chosen point.
 */

const disks = new Disks(mkdtempSync(join(tmpdir(), 'stampede-hostile-disk-')));
afterAll(() => disks.release());

const PROFILE = 'test/fixtures/cli/small.yaml';
// One second of traffic: logs of a few pages, a result.json larger than both of them together.
const RUN = ['run', PROFILE, '--set', 'phases[0].duration=1s'];
const QUALIFY = ['qualify', PROFILE, '--step', '2s', '--warmup', '500ms', '--max-steps', '4'];
const RUN_FILES = ['result.json', 'analysis.json', 'latency.hlog', 'intervals.jsonl', 'profile.json', 'summary.md', 'report.md', 'report.html'];
const LOGS = ['latency.hlog', 'intervals.jsonl'];
// The reference runs go through the real CLI: seconds each on a busy machine.
const HOOK_TIMEOUT_MS = 120_000;

/** The CLI with stdout and stderr in one pipe, in the order printed: the terminal's lines. */
function onTerminal(args: string[], env: Record<string, string> = {}): { status: number | null; lines: string[] } {
  const child = spawnSync('sh', ['-c', 'exec "$@" 2>&1', 'sh', process.execPath, CLI_ENTRY, ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, ...env },
  });
  return { status: child.status, lines: child.stdout.trimEnd().split('\n') };
}

/** The files a "not saved" line names (every path under `root`), each with its reason. */
function namedLost(line: string, root: string): Map<string, string> {
  expect(line).toMatch(/^stampede: not saved: /);
  const named = new Map<string, string>();
  for (const group of line.replace(/^stampede: not saved: /, '').split(/; (?=\/)/)) {
    const [, paths, why] = /^(.*?) \((.*)\)$/.exec(group)!;
    for (const path of paths!.split(', ')) named.set(path.startsWith(root) ? path.slice(root.length + 1) : path, why!);
  }
  return named;
}

/** A page-rounded size of every file under `dir`, by path relative to it. */
function sizes(dir: string, under = ''): Map<string, number> {
  const out = new Map<string, number>();
  for (const name of readdirSync(join(dir, under)).sort()) {
    const path = join(under, name);
    if (statSync(join(dir, path)).isDirectory()) for (const [p, s] of sizes(dir, path)) out.set(p, s);
    else out.set(path, pages(statSync(join(dir, path)).size));
  }
  return out;
}

const sum = (all: Map<string, number>, pick: (path: string) => boolean = () => true) => [...all].reduce((n, [p, s]) => n + (pick(p) ? s : 0), 0);

/** result.json, when there, parses and names only logs that are there; no temporary file is left. */
function checkRunFolder(dir: string): { files?: string[]; interrupted: boolean; intervals: { file?: string } } | undefined {
  expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  if (!existsSync(join(dir, 'result.json'))) return undefined;
  const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'));
  expect(result.schema).toBe('stampede.result/3');
  for (const name of result.files) expect(existsSync(join(dir, name)), `${dir}/${name}, named in result.json`).toBe(true);
  expect(result.files.every((name: string) => LOGS.includes(name))).toBe(true);
  if (result.intervals.file !== undefined) expect(result.files).toContain(result.intervals.file);
  return result;
}

/** Every run-folder file that is missing is named lost, and every file named lost is missing or a log cut short. */
function checkNamed(named: Map<string, string>, dir: string, prefix = ''): void {
  for (const name of RUN_FILES) {
    const path = join(prefix, name);
    if (!existsSync(join(dir, path))) expect(named.has(path), `${path} is missing but not named`).toBe(true);
    else if (named.has(path)) expect(named.get(path)).toMatch(/cut after its last whole interval/);
  }
}

/** qualification.json, when there, parses; each step it names is a folder whose result.json (if any) names only files there. */
function checkQualificationFolder(dir: string): { interrupted: boolean; search: { stopped: string }; steps: { dir: string }[] } | undefined {
  if (!existsSync(join(dir, 'qualification.json'))) return undefined;
  const q = JSON.parse(readFileSync(join(dir, 'qualification.json'), 'utf8'));
  for (const step of q.steps) {
    expect(statSync(join(dir, step.dir)).isDirectory()).toBe(true);
    checkRunFolder(join(dir, step.dir));
  }
  return q;
}

describe.runIf(disks.canMount)('disk full at the end: stampede run on the model', { timeout: 180_000 }, () => {
  let ref: Map<string, number>;
  beforeAll(() => {
    const out = join(disks.scratch, 'reference-run');
    expect(stampede([...RUN, '--out', out, '--quiet']).status).toBe(0);
    ref = sizes(out);
    expect([...ref.keys()].sort()).toEqual([...RUN_FILES].sort());
  }, HOOK_TIMEOUT_MS);

  it('before the run (a disk already full): every file is named, the logs are not removed in vain, the verdict still printed', () => {
    const disk = disks.mount('run-full', '64k')!;
    fillDisk(disk);
    const out = join(disk, 'run');
    const { status, lines } = onTerminal([...RUN, '--out', out]);
    expect(status).toBe(3);
    expect(lines.at(-2)).toMatch(/^INVALID: .*interrupted: partial results/);
    const named = namedLost(lines.at(-1)!, out);
    expect([...named.keys()].sort()).toEqual(['analysis.json', 'latency.hlog', 'profile.json', 'report.html', 'report.md', 'result.json', 'summary.md']);
    expect(named.get('result.json')).toBe('no space left on device (ENOSPC)');
    expect(named.get('latency.hlog')).toBe('no space left on device (ENOSPC): cut after its last whole interval and the run stopped there');
    expect(checkRunFolder(out)).toBeUndefined();
    checkNamed(named, out);
  });

  it('during the logs (an hour of traffic on 256 KiB): the run stops, latency.hlog gives way to result.json', () => {
    const disk = disks.mount('run-logs', '256k')!;
    const out = join(disk, 'run');
    const { status, lines } = onTerminal(['run', PROFILE, '--set', 'phases[0].duration=1h', '--out', out]);
    expect(status).toBe(3);
    expect(lines.at(-2)).toMatch(/^INVALID: .*interrupted: partial results/);
    expect(lines.at(-1)).toBe(
      `stampede: not saved: ${out}/latency.hlog (no space left on device (ENOSPC): cut after its last whole interval and the run stopped there, then removed to make room for result.json)`,
    );
    const result = checkRunFolder(out)!;
    expect(result.interrupted).toBe(true);
    expect(result.files).toEqual(['intervals.jsonl']);
    expect(result.intervals.file).toBe('intervals.jsonl');
    expect(existsSync(join(out, 'latency.hlog'))).toBe(false);
  });

  it('exactly at result.json, with room in the logs: latency.hlog gives way, result.json names only intervals.jsonl, PASS and exit 3 both shown', () => {
    const logs = sum(ref, (p) => LOGS.includes(p));
    const hlog = ref.get('latency.hlog')!;
    // The logs fit; result.json does not beside them, but does once latency.hlog is gone.
    const size = logs + ref.get('result.json')! - Math.ceil(hlog / PAGE / 2) * PAGE;
    expect(hlog).toBeGreaterThanOrEqual(2 * PAGE);
    const disk = disks.mount('run-result-room', size)!;
    const out = join(disk, 'run');
    const { status, lines } = onTerminal([...RUN, '--out', out]);
    expect(status).toBe(3);
    expect(lines.at(-2)).toMatch(/^PASS: every SLO check held/);
    const named = namedLost(lines.at(-1)!, out);
    expect(named.get('latency.hlog')).toBe('removed to make room for result.json');
    expect(named.has('result.json')).toBe(false);
    const result = checkRunFolder(out)!;
    expect(result.files).toEqual(['intervals.jsonl']);
    expect(result.intervals.file).toBe('intervals.jsonl');
    checkNamed(named, out);
  });

  it('exactly at result.json, with no room even without the logs: result.json is named, the logs stay whole', () => {
    const logs = sum(ref, (p) => LOGS.includes(p));
    // The logs fill the disk; result.json is larger than the logs and the free space together.
    expect(logs).toBeLessThan(ref.get('result.json')!);
    const disk = disks.mount('run-result-none', logs)!;
    const out = join(disk, 'run');
    const { status, lines } = onTerminal([...RUN, '--out', out]);
    expect(status).toBe(3);
    expect(lines.at(-2)).toMatch(/^PASS: every SLO check held/);
    const named = namedLost(lines.at(-1)!, out);
    expect(named.get('result.json')).toBe('no space left on device (ENOSPC)');
    for (const log of LOGS) {
      expect(named.has(log)).toBe(false);
      expect(statSync(join(out, log)).size).toBeGreaterThan(0);
    }
    expect(checkRunFolder(out)).toBeUndefined();
    checkNamed(named, out);
  });

  it('at the HTML report: only report.html is named, result.json names both logs, PASS and exit 3 both shown', () => {
    const html = ref.get('report.html')!;
    const disk = disks.mount('run-html', sum(ref, (p) => p !== 'report.html') + Math.ceil(html / PAGE / 2) * PAGE)!;
    const out = join(disk, 'run');
    const { status, lines } = onTerminal([...RUN, '--out', out]);
    expect(status).toBe(3);
    expect(lines.at(-3)).toBe(`written to ${out}/`);
    expect(lines.at(-2)).toMatch(/^PASS: every SLO check held/);
    expect(lines.at(-1)).toBe(`stampede: not saved: ${out}/report.html (no space left on device (ENOSPC))`);
    expect(checkRunFolder(out)!.files).toEqual(LOGS);
    expect(readdirSync(out).sort()).toEqual(RUN_FILES.filter((f) => f !== 'report.html').sort());
  });
});

describe.runIf(disks.canMount)('disk full at the end: stampede qualify on the model', { timeout: 180_000 }, () => {
  let ref: Map<string, number>;
  let firstStep: string;
  beforeAll(() => {
    const out = join(disks.scratch, 'reference-qualify');
    expect(stampede([...QUALIFY, '--out', out, '--quiet']).status).toBe(0);
    ref = sizes(out);
    firstStep = [...ref.keys()]
      .find((p) => p.startsWith('steps/01-'))!
      .split('/')
      .slice(0, 2)
      .join('/');
  }, HOOK_TIMEOUT_MS);
  const inStep = (step: string, names: string[]) => (p: string) => names.some((n) => p === `${step}/${n}`);

  it('before the run (a disk already full): the search stops after its first step, every file named, the verdict printed', () => {
    const disk = disks.mount('qualify-full', '64k')!;
    fillDisk(disk);
    const out = join(disk, 'q');
    const { status, lines } = onTerminal([...QUALIFY, '--out', out]);
    expect(status).toBe(3);
    expect(lines.at(-2)).toMatch(/^INVALID: interrupted after 0 complete steps/);
    const named = namedLost(lines.at(-1)!, out);
    for (const name of ['qualification.json', 'report.md', 'report.html', `${firstStep}/result.json`]) expect(named.get(name)).toBe('no space left on device (ENOSPC)');
    expect(readdirSync(join(out, 'steps'))).toEqual([firstStep.split('/')[1]]);
    checkNamed(named, out, firstStep);
    expect(checkQualificationFolder(out)).toBeUndefined();
  });

  it('during the second step’s logs: the search stops there; the first step’s report gives way to the second’s result.json', () => {
    const disk = disks.mount('qualify-logs', sum(ref, (p) => p.startsWith(`${firstStep}/`)) + PAGE)!;
    const out = join(disk, 'q');
    const { status, lines } = onTerminal([...QUALIFY, '--out', out]);
    expect(status).toBe(3);
    // The model may finish the step before it sees the stop: then it is whole, only its logs are cut.
    expect(lines.at(-2)).toMatch(/^INVALID: interrupted after [12] complete steps?/);
    const named = namedLost(lines.at(-1)!, out);
    expect(named.get(`${firstStep}/report.html`)).toBe('removed to make room for result.json');
    const q = checkQualificationFolder(out)!;
    expect(q.interrupted).toBe(true);
    expect(q.search.stopped).toBe('interrupted: the disk did not take all of step 2’s files, so the search stopped there');
    expect(q.steps).toHaveLength(2);
    const second = q.steps[1]!.dir;
    const cut = [...named].filter(([path, why]) => path.startsWith(`${second}/`) && why.includes('cut after its last whole interval')).map(([path]) => path);
    expect(cut.length).toBeGreaterThan(0);
    // The second step's result.json was kept, and does not vouch for the logs the disk cut.
    const result = checkRunFolder(join(out, second))!;
    for (const path of cut) expect(result.files).not.toContain(path.slice(second.length + 1));
    checkNamed(named, out, second);
  });

  it('exactly at the first step’s result.json: its latency.hlog gives way, the search stops, qualification.json is named', () => {
    const step = (names: string[]) => sum(ref, inStep(firstStep, names));
    const hlog = step(['latency.hlog']);
    expect(hlog).toBeGreaterThanOrEqual(2 * PAGE);
    const disk = disks.mount('qualify-result', step(LOGS) + step(['result.json']) - Math.ceil(hlog / PAGE / 2) * PAGE)!;
    const out = join(disk, 'q');
    const { status, lines } = onTerminal([...QUALIFY, '--out', out]);
    expect(status).toBe(3);
    expect(lines.at(-2)).toMatch(/^INVALID: interrupted after 1 complete step/);
    const named = namedLost(lines.at(-1)!, out);
    expect(named.get(`${firstStep}/latency.hlog`)).toBe('removed to make room for result.json');
    expect(named.get('qualification.json')).toBe('no space left on device (ENOSPC)');
    expect(checkRunFolder(join(out, firstStep))!.files).toEqual(['intervals.jsonl']);
    checkNamed(named, out, firstStep);
    expect(checkQualificationFolder(out)).toBeUndefined();
  });

  it('at the qualification’s HTML report: only it is named; qualification.json is whole; PASS and exit 3 both shown', () => {
    const html = ref.get('report.html')!;
    const disk = disks.mount('qualify-html', sum(ref, (p) => p !== 'report.html') + Math.ceil(html / PAGE / 2) * PAGE)!;
    const out = join(disk, 'q');
    const { status, lines } = onTerminal([...QUALIFY, '--out', out]);
    expect(status).toBe(3);
    expect(lines.at(-2)).toMatch(/^PASS: capacity/);
    expect(lines.at(-1)).toBe(`stampede: not saved: ${out}/report.html (no space left on device (ENOSPC))`);
    const q = checkQualificationFolder(out)!;
    expect(q.interrupted).toBe(false);
    expect(q.steps).toHaveLength(4);
    expect(existsSync(join(out, 'report.md'))).toBe(true);
  });
});

describe.runIf(disks.canMount)('disk full at the end: every other command that writes', { timeout: 180_000 }, () => {
  let full: string;
  let run: string;
  beforeAll(() => {
    full = disks.mount('others', '1m')!;
    run = join(full, 'run');
    expect(stampede([...RUN, '--out', run, '--quiet']).status).toBe(0);
    fillDisk(full);
  }, HOOK_TIMEOUT_MS);

  it('report: exit 3 naming report.md and report.html; the reports already there are untouched', () => {
    const before = readFileSync(join(run, 'report.html'), 'utf8');
    const { status, lines } = onTerminal(['report', run]);
    expect(status).toBe(3);
    expect(lines.at(-1)).toBe(`stampede: not saved: ${run}/report.md, ${run}/report.html (no space left on device (ENOSPC))`);
    expect(readFileSync(join(run, 'report.html'), 'utf8')).toBe(before);
  });

  it('export csv: exit 3 naming each CSV file, and no "wrote" line', () => {
    const { status, lines } = onTerminal(['export', 'csv', run]);
    expect(status).toBe(3);
    expect(lines).toEqual([`stampede: not saved: ${run}/intervals.csv, ${run}/summary.csv (no space left on device (ENOSPC))`]);
    expect(existsSync(join(run, 'intervals.csv'))).toBe(false);
  });

  it('export k6 -o: exit 3 naming the script, and no script (not half of one) is left', () => {
    const script = join(full, 'script.ts');
    const { status, lines } = onTerminal(['export', 'k6', PROFILE, '--target', 'http://127.0.0.1:8080', '-o', script]);
    expect(status).toBe(3);
    expect(lines).toEqual([`stampede: not saved: ${script} (no space left on device (ENOSPC))`]);
    expect(existsSync(script)).toBe(false);
  });

  it('merge --out: exit 3, the merged verdict printed, result.json (if written) names only files there', () => {
    const segments = [0, 1].map((i) => join(disks.scratch, `segment-${i}`));
    for (const [i, dir] of segments.entries()) expect(stampede([...RUN, '--segment', `${i}/2`, '--out', dir, '--quiet']).status).toBe(0);
    const out = join(full, 'merged');
    const { status, lines } = onTerminal(['merge', ...segments, '--out', out]);
    expect(status).toBe(3);
    expect(lines.at(-2)).toMatch(/^PASS: /);
    const named = namedLost(lines.at(-1)!, out);
    expect(named.get('result.json')).toBe('no space left on device (ENOSPC)');
    checkRunFolder(out);
    checkNamed(named, out);
  });

  it('--junit and $GITHUB_STEP_SUMMARY on a full disk: exit 3 naming both, after the PASS', () => {
    const out = join(disks.scratch, 'junit-run');
    const junit = join(full, 'junit.xml');
    const summary = join(full, 'step-summary.md');
    const { status, lines } = onTerminal([...RUN, '--out', out, '--junit', junit], { GITHUB_STEP_SUMMARY: summary });
    expect(status).toBe(3);
    expect(lines.at(-2)).toMatch(/^PASS: /);
    expect(lines.at(-1)).toBe(`stampede: not saved: ${junit}, ${summary} (no space left on device (ENOSPC))`);
    expect(checkRunFolder(out)!.files).toEqual(LOGS);
  });
});

describe('standard output to a full disk (/dev/full): exit 3 naming it, not a crash read as a FAIL', { timeout: 180_000 }, () => {
  const toDevFull = (args: string[]) => {
    const child = spawnSync('sh', ['-c', 'exec "$@" > /dev/full', 'sh', process.execPath, CLI_ENTRY, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
    return { status: child.status, stderr: child.stderr };
  };
  const NOT_SAVED = 'stampede: not saved: standard output (no space left on device (ENOSPC))\n';

  it.each([
    ['k8s', ['k8s', 'profiles/steady-peak.yaml', '--segments', '2', '--image', 'registry.example/stampede:0']],
    ['sweep', ['sweep', PROFILE, '--vary', 'phases[0].rate=1000,2000', '--set', 'phases[0].duration=1s', '--parallel', '1', '--quiet']],
  ])('%s', (_name, args) => {
    const { status, stderr } = toDevFull(args);
    expect(status).toBe(3);
    expect(stderr.endsWith(NOT_SAVED)).toBe(true);
    expect(stderr).not.toContain('Unhandled');
  });

  it('run: its folder is whole, the verdict it could not print is named lost', () => {
    const out = join(disks.scratch, 'stdout-run');
    const { status, stderr } = toDevFull([...RUN, '--out', out]);
    expect(status).toBe(3);
    expect(stderr).toBe(NOT_SAVED);
    expect(readdirSync(out).sort()).toEqual([...RUN_FILES].sort());
  });
});
