import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY, repoRoot } from '../helpers/cli.ts';
import { startHttpTarget } from '../helpers/targets.ts';

/*
 * Secrets end to end: the real CLI sends to a local server with tokens from the environment; the
 * server must receive them, and no file of the run folder (nor the JUnit file, the CI step
 * summary, stdout or stderr) may hold one.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-secrets-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The CLI as a child process, so this process's server answers while it runs; killed if it outlives `limitMs`. */
function runCli(args: string[], env: Record<string, string>, limitMs = 90_000): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_ENTRY, ...args], { cwd: repoRoot, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('secrets from the environment', () => {
  it('reach the target and appear in no artifact, report or terminal output', { timeout: 120_000 }, async () => {
    const token = `tok-${randomBytes(12).toString('hex')}`;
    // Characters a path must encode: the server sees the encoded form, the artifacts neither.
    const signature = `sig+/=${randomBytes(6).toString('hex')}`;
    const literalKey = `literal-${randomBytes(6).toString('hex')}`;
    const seen = { authorization: new Set<string>(), apiKey: new Set<string>(), urls: new Set<string>(), bodies: new Set<string>() };
    const target = await startHttpTarget((req, res) => {
      seen.authorization.add(String(req.headers.authorization));
      seen.apiKey.add(String(req.headers['x-api-key']));
      seen.urls.add(req.url ?? '');
      let body = '';
      req.on('data', (d) => (body += String(d)));
      req.on('end', () => {
        seen.bodies.add(body);
        res.end('ok');
      });
    });
    try {
      const profile = join(scratch, 'secret.yaml');
      writeFileSync(
        profile,
        [
          'name: secret-run',
          `target: ${target.url}`,
          'phases: [{ type: steady, rate: 40, duration: 2s }]',
          'slo: { latency: [{ percentile: 99, max: 1s }] }',
          'http:',
          '  connections: 2',
          '  requests:',
          '    default:',
          '      method: POST',
          '      path: "/item/{{key}}?sig=${API_SIG}"',
          `      headers: { authorization: "Bearer \${AUTH_TOKEN}", x-api-key: "${literalKey}", content-type: application/json }`,
          '      body: \'{"token": "${AUTH_TOKEN}", "key": "{{key}}"}\'',
          '',
        ].join('\n'),
      );
      const out = join(scratch, 'run');
      const junit = join(out, 'ci', 'junit.xml');
      const stepSummary = join(out, 'ci', 'step-summary.md');
      const run = await runCli(['run', profile, '--out', out, '--junit', junit, '--set', `http.requests.default.headers.x-api-key=${literalKey}`], {
        AUTH_TOKEN: token,
        API_SIG: signature,
        GITHUB_STEP_SUMMARY: stepSummary,
        STAMPEDE_DEBUG: '',
      });
      expect([0, 1], run.stderr).toContain(run.status);

      // The target received every secret, the path's encoded.
      expect([...seen.authorization]).toEqual([`Bearer ${token}`]);
      expect([...seen.apiKey]).toEqual([literalKey]);
      expect([...seen.urls].every((u) => u.endsWith(`?sig=${encodeURIComponent(signature)}`))).toBe(true);
      expect([...seen.bodies].every((b) => JSON.parse(b).token === token)).toBe(true);

      const files = filesUnder(out);
      expect(files.map((f) => f.slice(out.length + 1)).sort()).toEqual(
        expect.arrayContaining(['analysis.json', 'ci/junit.xml', 'ci/step-summary.md', 'latency.hlog', 'profile.json', 'report.html', 'report.md', 'result.json', 'summary.md']),
      );
      const forms = [token, signature, encodeURIComponent(signature), JSON.stringify(signature).slice(1, -1), literalKey];
      for (const text of [...files.map((f) => readFileSync(f, 'utf8')), run.stdout, run.stderr]) for (const form of forms) expect(text).not.toContain(form);

      const stored = JSON.parse(readFileSync(join(out, 'profile.json'), 'utf8'));
      expect(stored.http.requests.default.headers).toMatchObject({ authorization: '[redacted]', 'x-api-key': '[redacted]', 'content-type': 'application/json' });
      expect(stored.http.requests.default.path).toBe('/item/{{key}}?sig=${API_SIG}');
      expect(stored.source.overrides).toEqual(['http.requests.default.headers.x-api-key=[redacted]']);
      expect(stored.source.secrets.map((s: { variable: string; field: string }) => `${s.variable} ${s.field}`)).toEqual([
        'API_SIG http.requests.default.path',
        'AUTH_TOKEN http.requests.default.headers.authorization',
        'AUTH_TOKEN http.requests.default.body',
      ]);
    } finally {
      await target.close();
    }
  });

  it('a whole request template given by --set: its credential is sent, and the --set is written [redacted]', { timeout: 120_000 }, async () => {
    const token = `tok-${randomBytes(12).toString('hex')}`;
    const cookie = `sid=${randomBytes(12).toString('hex')}`;
    const seen = { cookie: new Set<string>(), urls: new Set<string>() };
    const target = await startHttpTarget((req, res) => {
      seen.cookie.add(String(req.headers.cookie));
      seen.urls.add(req.url ?? '');
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    try {
      const profile = join(scratch, 'template-set.yaml');
      writeFileSync(profile, `name: template-set\ntarget: ${target.url}\nphases: [{ type: steady, rate: 20, duration: 1s }]\nhttp:\n  connections: 1\n`);
      const out = join(scratch, 'template-set-run');
      const set = `http.requests.default={path: "/q?token=\${AUTH_TOKEN}", headers: {cookie: "${cookie}"}}`;
      const run = await runCli(['run', profile, '--out', out, '--set', set], { AUTH_TOKEN: token });
      expect([0, 1], run.stderr).toContain(run.status);
      expect([[...seen.cookie], [...seen.urls]]).toEqual([[cookie], [`/q?token=${token}`]]);
      for (const text of [...filesUnder(out).map((f) => readFileSync(f, 'utf8')), run.stdout, run.stderr]) for (const form of [token, cookie]) expect(text).not.toContain(form);
      const stored = JSON.parse(readFileSync(join(out, 'profile.json'), 'utf8'));
      expect(stored.source.overrides).toEqual(['http.requests.default=[redacted]']);
      expect(stored.http.requests.default).toMatchObject({ path: '/q?token=${AUTH_TOKEN}', headers: { cookie: '[redacted]' } });
    } finally {
      await target.close();
    }
  });

  it('a refusal that would echo a credential names the field and the kind of its value: exit 2, no traffic, the value not printed', { timeout: 60_000 }, async () => {
    let requests = 0;
    const target = await startHttpTarget((_req, res) => {
      requests++;
      res.end('ok');
    });
    try {
      const digits = String(BigInt(`0x1${randomBytes(8).toString('hex')}`));
      const literal = `pa55-${randomBytes(8).toString('hex')}`;
      const profile = join(scratch, 'echo.yaml');
      writeFileSync(
        profile,
        `name: echo\ntarget: ${target.url}\nphases: [{ type: steady, rate: 10, duration: 1s }]\nhttp:\n  requests:\n    default:\n      headers: { x-api-key: "${literal}\\r\\nX-Injected: 1" }\n`,
      );
      const out = join(scratch, 'echo-run');
      const run = await runCli(['run', profile, '--out', out, '--set', `http.requests.default.headers.authorization=${digits}`], {});
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(
        `${profile}:7:29  http.requests.default.headers.x-api-key: expected no CR, LF or NUL in header x-api-key, got a string (not shown: it is a secret's field)`,
      );
      expect(run.stderr).toContain(
        "http.requests.default.headers.authorization: expected text, got a number (not shown: it is a secret's field) (from --set http.requests.default.headers.authorization=[redacted])",
      );
      expect([run.stderr.includes(digits), run.stderr.includes(literal), run.stdout]).toEqual([false, false, '']);
      expect(requests).toBe(0);
      expect(() => statSync(out)).toThrow();
    } finally {
      await target.close();
    }
  });

  it('a variable that is not set: exit 2 naming it, the field, the file and line, before any traffic or folder', { timeout: 60_000 }, async () => {
    let requests = 0;
    const target = await startHttpTarget((_req, res) => {
      requests++;
      res.end('ok');
    });
    try {
      const profile = join(scratch, 'unset.yaml');
      writeFileSync(
        profile,
        `name: unset\ntarget: ${target.url}\nphases: [{ type: steady, rate: 10, duration: 1s }]\nhttp:\n  requests:\n    default:\n      headers: { authorization: "Bearer \${STAMPEDE_TEST_NEVER_SET}" }\n`,
      );
      const out = join(scratch, 'unset-run');
      const run = await runCli(['run', profile, '--out', out], {});
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`${profile}:7:33  http.requests.default.headers.authorization: environment variable STAMPEDE_TEST_NEVER_SET is not set`);
      expect(requests).toBe(0);
      expect(() => statSync(out)).toThrow();
    } finally {
      await target.close();
    }
  });
});
