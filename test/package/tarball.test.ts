import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.ts';

/*
 * The package as a user gets it: `npm pack` (which builds dist/ through `prepare`), installed into an
 * empty folder, then its library imported by a plain node process and its compiled CLI run. Install
 * prefers npm's cache (filled by the repository's own `npm ci`), falling back to the registry.
 */

const NAME = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).name as string;
const project = mkdtempSync(join(tmpdir(), 'stampede-package-'));
const installed = join(project, 'node_modules', NAME);
const profile = join(installed, 'profiles', 'steady-peak.yaml');
/** A second of light traffic: the shipped profile shortened with --set. */
const SHORT = ['warmup=0', 'phases=[{type: steady, rate: 200, duration: 1s}]'];

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function cli(args: string[]) {
  return spawnSync(join(project, 'node_modules', '.bin', 'stampede'), args, { cwd: project, encoding: 'utf8', timeout: 60_000 });
}

beforeAll(() => {
  npm(['pack', '--silent', '--pack-destination', project], repoRoot);
  const tarball = readdirSync(project).find((f) => f.endsWith('.tgz'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', join(project, tarball!)], project);
}, 240_000);
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('the packed tarball', () => {
  it('ships the compiled package and none of the sources or tests', () => {
    const files = readdirSync(installed);
    expect(files).toEqual(expect.arrayContaining(['dist', 'bin', 'profiles', 'LICENSE', 'README.md', 'docs', 'package.json']));
    expect(files).not.toContain('src');
    expect(files).not.toContain('test');
  });

  it('ships every page the README links into docs/', () => {
    const readme = readFileSync(join(installed, 'README.md'), 'utf8');
    const pages = [...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((m) => m[1]!);
    expect(pages.length).toBeGreaterThanOrEqual(10);
    for (const page of pages) expect(existsSync(join(installed, page)), page).toBe(true);
  });

  it('stampede --version prints the package version', () => {
    const run = cli(['--version']);
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version);
  });

  it('stampede validate checks a shipped profile', () => {
    const run = cli(['validate', profile]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('# steady-peak: valid');
  });

  it('stampede lint reads a shipped k6 script (esbuild installed as a dependency)', () => {
    const run = cli(['lint', join(installed, 'profiles', 'k6', 'closed-loop.js')]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('| **INVALID** | coordinated-omission | closed-loop load:');
    expect(run.status).toBe(1);
  });

  it('imports { runProfile, loadProfile } and runs a profile on the model', () => {
    const script = `
      import { loadProfile, runProfile } from ${JSON.stringify(NAME)};
      const profile = await loadProfile(${JSON.stringify(profile)}, ${JSON.stringify(SHORT)});
      const { result, dir } = await runProfile(profile, { outDir: ${JSON.stringify(join(project, 'run'))} });
      console.log(JSON.stringify({ sent: result.requests.sent, target: result.target, dir }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' }));
    expect(out).toEqual({ sent: expect.any(Number), target: 'model', dir: join(project, 'run') });
    expect(out.sent).toBeGreaterThan(0);
  });

  it('gives TypeScript users the types', () => {
    writeFileSync(
      join(project, 'use.ts'),
      `import { loadProfile, runProfile, type RunOutcome } from ${JSON.stringify(NAME)};\n` +
        `const outcome: Promise<RunOutcome> = loadProfile('p.yaml').then((p) => runProfile(p));\n` +
        `// @ts-expect-error: runProfile takes a loaded Profile, not a path\nvoid runProfile('p.yaml');\nvoid outcome;\n`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'], typeRoots: [join(repoRoot, 'node_modules', '@types')] },
        files: ['use.ts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], { encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });

  describe('worker threads from dist/', () => {
    let server: Server;
    let seen = 0;
    beforeAll(async () => {
      server = createServer((_, res) => {
        seen += 1;
        res.end('ok');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('runs an http target from two worker threads', async () => {
      const { port } = server.address() as AddressInfo;
      const args = ['run', profile, ...SHORT.flatMap((s) => ['--set', s]), '--target', `http://127.0.0.1:${port}`, '--workers', '2', '--out', join(project, 'workers'), '--quiet'];
      const child = spawn(join(project, 'node_modules', '.bin', 'stampede'), args, { cwd: project });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(stderr).toBe('');
      expect([0, 1]).toContain(status);
      const result = JSON.parse(readFileSync(join(project, 'workers', 'result.json'), 'utf8'));
      expect(result.requests.sent).toBeGreaterThan(0);
      expect(result.requests.ok).toBeGreaterThan(0);
      expect(seen).toBeGreaterThanOrEqual(result.requests.ok);
    });
  });
});
