import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, type CliResult, repoRoot } from '../helpers/cli.ts';
import { makeTestPki, type TestPki } from '../helpers/tls.ts';

/*
 * Hostile files (issue 19): every file a command reads — a run folder's artifacts, a profile, its
 * key file and TLS files, a k6 script, a production sample — is read only if it is a regular file
 * under a bound; anything else is exit 2 at once naming the file and why, never a hang, a read
 * until memory runs out, or an internal error (exit 70). Outputs that cannot be written are exit 3.
 * Before this suite: a FIFO result.json blocked `report` for ever (deaf to SIGTERM), /dev/zero read
 * until 13.6 GB, and a 600 MB file, a directory, a non-JSON result.json, a symlink cycle under
 * `history`, a garbage certificate and `export k6 -o missing/` each ended as exit 70.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-hostile-files-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * The real CLI, killed with SIGKILL past `timeoutMs`: a command stuck in a blocking read (the bug
 * these cases guard against) ignores SIGTERM, and spawnSync would then wait for it for ever.
 */
function stampede(args: string[], timeoutMs: number): CliResult {
  const child = spawnSync(process.execPath, [CLI_ENTRY, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL' });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

/** A command that hangs fails the test (spawnSync kills it: status null) rather than the suite. */
const AT_ONCE_MS = 60_000;
const MODEL_PROFILE =
  'name: hostile\nphases: [{ type: steady, rate: 100, duration: 1s }]\ntopology:\n  entry: api\n  services: { api: { workers: 8, serviceTime: { type: exponential, mean: 1ms } } }\n';

/** One real run folder, copied for each case. */
let run: string;
beforeAll(() => {
  writeFileSync(join(scratch, 'model.yaml'), MODEL_PROFILE);
  run = join(scratch, 'run');
  const made = stampede(['run', join(scratch, 'model.yaml'), '--out', run, '--quiet'], 120_000);
  expect(made.status, made.stderr).toBe(0);
}, 120_000);

/** A copy of the run folder with `file` replaced by what `make` puts at its path. */
function folderWith(name: string, file: string, make: (path: string) => void): string {
  const dir = join(scratch, name);
  cpSync(run, dir, { recursive: true });
  rmSync(join(dir, file));
  make(join(dir, file));
  return dir;
}

const fifo = (path: string) => execFileSync('mkfifo', [path]);
const zero = (path: string) => symlinkSync('/dev/zero', path);
/** Sparse: 600 MB that cost no disk. */
const sparse600MB = (path: string) => {
  writeFileSync(path, '');
  truncateSync(path, 600 * 1024 * 1024);
};

/** Bad input: exit 2, one line naming the problem, no stack, no internal error. */
function expectRefused(r: CliResult, fragment: string): void {
  expect(r.status, r.stderr).toBe(2);
  expect(r.stderr).toContain(fragment);
  expect(r.stderr).not.toContain('internal error');
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('hostile files: a run folder read back (report, compare, merge)', { timeout: AT_ONCE_MS * 2 }, () => {
  it.each([
    ['a FIFO', fifo, 'result.json: a FIFO (named pipe), not a regular file'],
    ['a link to /dev/zero', zero, 'result.json: a character device (a link to /dev/zero), not a regular file'],
    ['a directory', (path: string) => mkdirSync(path), 'result.json: a directory, not a regular file'],
    ['a sparse 600 MB file', sparse600MB, 'result.json: 600 MiB, more than a result.json may hold (at most 64 MiB)'],
    ['not JSON', (path: string) => writeFileSync(path, 'not json\n'), 'result.json: not JSON (Unexpected token'],
    ['another program’s JSON', (path: string) => writeFileSync(path, '{}\n'), 'result.json: not a file stampede wrote: its schema is missing, expected stampede.result/3'],
  ])('report and compare of a result.json that is %s: exit 2 at once, naming it; report.md untouched', (name, make, fragment) => {
    const dir = folderWith(`result-${name.replace(/\W+/g, '-')}`, 'result.json', make);
    const before = readFileSync(join(dir, 'report.md'), 'utf8');
    expectRefused(stampede(['report', dir], AT_ONCE_MS), `${join(dir, 'result.json')}: ${fragment.slice('result.json: '.length)}`);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toBe(before);
    expectRefused(stampede(['compare', run, dir], AT_ONCE_MS), fragment);
  });

  it('report of a folder whose latency.hlog is a FIFO, or whose analysis.json is not JSON: exit 2 naming the file', () => {
    const hlog = folderWith('hlog-fifo', 'latency.hlog', fifo);
    expectRefused(stampede(['report', hlog], AT_ONCE_MS), `${join(hlog, 'latency.hlog')}: a FIFO (named pipe), not a regular file`);
    const analysis = folderWith('analysis-text', 'analysis.json', (path) => writeFileSync(path, 'nope'));
    expectRefused(stampede(['report', analysis], AT_ONCE_MS), `${join(analysis, 'analysis.json')}: not JSON (`);
  });

  it('compare of a folder with no result.json: exit 2 naming the folder', () => {
    const empty = join(scratch, 'empty');
    mkdirSync(empty);
    expectRefused(stampede(['compare', run, empty], AT_ONCE_MS), `<dir>: no result.json or qualification.json in ${empty}`);
  });

  it('merge of a segment whose intervals.jsonl is a sparse file of zeros: exit 2 at its first line, not read to the end', () => {
    const segments = [0, 1].map((i) => {
      const dir = join(scratch, `segment-${i}`);
      expect(stampede(['run', join(scratch, 'model.yaml'), '--segment', `${i}/2`, '--out', dir, '--quiet'], 120_000).status).toBe(0);
      return dir;
    });
    rmSync(join(segments[1]!, 'intervals.jsonl'));
    sparse600MB(join(segments[1]!, 'intervals.jsonl'));
    expectRefused(
      stampede(['merge', ...segments, '--out', join(scratch, 'merged')], AT_ONCE_MS),
      `${join(segments[1]!, 'intervals.jsonl')}: a line of more than 16 MiB, longer than any of an intervals.jsonl`,
    );
  });

  it('calibrate of a folder whose qualification.json is a FIFO: exit 2 naming it', () => {
    const dir = join(scratch, 'qualify-fifo');
    mkdirSync(dir);
    fifo(join(dir, 'qualification.json'));
    const r = stampede(['calibrate', dir, '--topology', 'profiles/topologies/reference-service.yaml', '--out', join(scratch, 'calibrated')], AT_ONCE_MS);
    expectRefused(r, `${join(dir, 'qualification.json')}: a FIFO (named pipe), not a regular file`);
  });
});

describe('hostile files: history over symbolic links', { timeout: AT_ONCE_MS * 2 }, () => {
  it('skips a link back up (a cycle), a link to itself and a dangling one, says so, and writes the history of the runs it found', () => {
    const nights = join(scratch, 'nights');
    mkdirSync(join(nights, 'a'), { recursive: true });
    cpSync(run, join(nights, 'a', 'night-1'), { recursive: true });
    symlinkSync('..', join(nights, 'a', 'loop'));
    symlinkSync('self', join(nights, 'self'));
    symlinkSync('/nonexistent/stampede-night', join(nights, 'dangling'));
    const r = stampede(['history', nights], AT_ONCE_MS);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`stampede: history: skipped ${join(nights, 'a', 'loop')}: a symbolic link back to ${nights}, a cycle\n`);
    expect(r.stderr).toContain(`stampede: history: skipped ${join(nights, 'self')}: a loop of symbolic links\n`);
    expect(r.stderr).toContain(`stampede: history: skipped ${join(nights, 'dangling')}: a symbolic link to nothing\n`);
    const history = readFileSync(join(nights, 'history.md'), 'utf8');
    expect(history).toMatch(/^# history: 1 runs? of 1 profile\n/);
    expect(history).toMatch(/^\| night-1 \| NO SLO /m);
    expect(existsSync(join(nights, 'history.html'))).toBe(true);
  });
});

describe('hostile files: what a profile names, a k6 script, a production sample', { timeout: AT_ONCE_MS * 2 }, () => {
  it('a profile that is a FIFO: exit 2 at once, naming it', () => {
    const path = join(scratch, 'fifo.yaml');
    fifo(path);
    expectRefused(stampede(['validate', path], AT_ONCE_MS), `${path}  cannot read the profile: a FIFO (named pipe), not a regular file`);
  });

  it('a keys.file linked to /dev/zero: exit 2 at keys.file, naming the file', () => {
    const profile = join(scratch, 'keys-zero.yaml');
    writeFileSync(profile, `${MODEL_PROFILE}keys: { file: zero.csv }\n`);
    zero(join(scratch, 'zero.csv'));
    expectRefused(
      stampede(['validate', profile], AT_ONCE_MS),
      `keys.file: cannot read key file "${join(scratch, 'zero.csv')}": a character device (a link to /dev/zero), not a regular file`,
    );
  });

  it('a k6 script that is a FIFO, or whose init code opens one: exit 2 naming it', () => {
    const script = join(scratch, 'script.js');
    fifo(script);
    expectRefused(stampede(['lint', script], AT_ONCE_MS), `k6 script ${script}: a FIFO (named pipe), not a regular file`);
    const opens = join(scratch, 'opens.js');
    writeFileSync(opens, "const data = open('./data.fifo');\nexport default function () {}\n");
    fifo(join(scratch, 'data.fifo'));
    expectRefused(stampede(['lint', opens], AT_ONCE_MS), `its init code threw: ${join(scratch, 'data.fifo')}: a FIFO (named pipe), not a regular file`);
  });

  it('a --production-sample that is a FIFO: exit 2 naming the option and the file', () => {
    const sample = join(scratch, 'sample.csv');
    fifo(sample);
    expectRefused(
      stampede(['lint', join(scratch, 'model.yaml'), '--production-sample', sample], AT_ONCE_MS),
      `--production-sample: cannot read ${sample}: a FIFO (named pipe), not a regular file`,
    );
  });
});

describe('hostile files: TLS material (run on https://, before any folder or traffic)', { timeout: AT_ONCE_MS * 2 }, () => {
  let pki: TestPki;
  beforeAll(async () => {
    pki = await makeTestPki(scratch);
    writeFileSync(join(scratch, 'garbage.pem'), 'this is not a certificate\n');
    fifo(join(scratch, 'ca-fifo.pem'));
  });

  /** `run` of a profile with this http.tls on an https:// target nobody serves: refused before it dials. */
  function runWithTls(name: string, tls: string): { r: CliResult; out: string } {
    const profile = join(scratch, `tls-${name}.yaml`);
    writeFileSync(profile, `name: tls-${name}\ntarget: https://127.0.0.1:9\nphases: [{ type: steady, rate: 10, duration: 1s }]\nhttp:\n  tls: ${tls}\n`);
    const out = join(scratch, `tls-${name}-out`);
    return { r: stampede(['run', profile, '--out', out], AT_ONCE_MS), out };
  }

  it.each([
    [
      'garbage',
      '{ cert: garbage.pem, key: client-key.pem }',
      () => `http.tls.cert: ${join(scratch, 'garbage.pem')} is not a PEM certificate (error:0480006C:PEM routines::no start line)`,
    ],
    ['mismatch', '{ cert: wrong-ca.pem, key: client-key.pem }', () => `http.tls.key: ${pki.files.clientKey} is not the key of the certificate ${pki.files.wrongCa} (`],
    ['ca-garbage', '{ ca: garbage.pem }', () => `http.tls.ca: ${join(scratch, 'garbage.pem')} holds no PEM certificate`],
    ['ca-missing', '{ ca: no-such-ca.pem }', () => `http.tls.ca: cannot read ${join(scratch, 'no-such-ca.pem')}: no such file`],
    ['ca-fifo', '{ ca: ca-fifo.pem }', () => `http.tls.ca: cannot read ${join(scratch, 'ca-fifo.pem')}: a FIFO (named pipe), not a regular file`],
  ])('%s: exit 2 naming http.tls.<field> and the file; no run folder', (name, tls, fragment) => {
    const { r, out } = runWithTls(name, tls);
    expectRefused(r, fragment());
    expect(existsSync(out)).toBe(false);
  });
});

describe('hostile files: outputs that cannot be written', { timeout: AT_ONCE_MS * 2 }, () => {
  it('export k6 -o into a missing folder or into /proc: exit 3 naming the file', () => {
    const profile = join(scratch, 'model.yaml');
    for (const out of [join(scratch, 'no-such-folder', 'script.ts'), '/proc/stampede-script.ts']) {
      const r = stampede(['export', 'k6', profile, '--target', 'http://127.0.0.1:8080', '-o', out], AT_ONCE_MS);
      expect(r.status, r.stderr).toBe(3);
      expect(r.stderr).toBe(`stampede: could not write ${out}: its folder is missing, or takes no files (ENOENT)\n`);
      expect(existsSync(out)).toBe(false);
    }
  });

  it('compare --out into a missing folder: exit 3 naming the file', () => {
    const out = join(scratch, 'no-such-folder', 'compare.md');
    const r = stampede(['compare', run, run, '--out', out], AT_ONCE_MS);
    expect(r.status, r.stderr).toBe(3);
    expect(r.stderr).toContain(`stampede: could not write ${out}: its folder is missing, or takes no files (ENOENT)`);
  });
});
