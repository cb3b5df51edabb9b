import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANALYSIS_SCHEMA } from '../../src/analysis/analyse-run.ts';
import { RESULT_SCHEMA } from '../../src/recorder/result.ts';
import { stampede, stampedeAsync } from '../helpers/cli.ts';
import { startHttpTarget } from '../helpers/targets.ts';

/*
 * Hostile values (issue 19): secrets whose text occurs in every file a run writes — the tool's own
 * name, a digit, JSON's indentation and punctuation, a field name. Redaction works on the fields
 * that hold a secret, never on the output's text, so each run folder parses, its numbers and
 * schema names are whole, `stampede report` reads it, and the secret's field reads [redacted].
 * A value like "0" cannot be checked absent by substring (every number holds one): its field is.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-hostile-values-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Values found everywhere in a run folder, and where (why each is hostile to a text search). */
const VALUES: readonly [string, string][] = [
  ['stampede', 'the schema names (stampede.result/3)'],
  ['0', 'a digit of every number'],
  ['000000', 'digits of timestamps and histograms'],
  [' '.repeat(8), 'the JSON indentation'],
  ['latency', 'a field name'],
  ['{', 'every JSON object'],
  ['"', 'every JSON string'],
  ['\\n', 'a JSON escape (backslash, n)'],
];

const REDACTED = '[redacted]';
const SET_AUTHORIZATION = 'http.requests.default.headers.authorization';

const MODEL_PROFILE = (apiKey: string) =>
  [
    'name: hostile-values',
    'seed: 7',
    'target: model',
    'phases: [{ type: steady, rate: 50, duration: 2s }]',
    'slo: { latency: [{ percentile: 50, max: 1s }] }',
    'topology:',
    '  entry: api',
    '  services: { api: { workers: 8, serviceTime: { type: exponential, mean: 1ms } } }',
    'http:',
    '  requests:',
    '    default:',
    `      headers: { x-api-key: ${JSON.stringify(apiKey)} }`,
    '',
  ].join('\n');

const HTTP_PROFILE = (target: string, name: string) =>
  [
    `name: ${name}`,
    'seed: 7',
    `target: ${target}`,
    'phases: [{ type: steady, rate: 20, duration: 1s }]',
    'slo: { latency: [{ percentile: 50, max: 5s }] }',
    'http:',
    '  connections: 1',
    '  requests:',
    '    default:',
    '      method: POST',
    '      path: "/item/{{key}}?sig=${AUTH_TOKEN}"',
    '      headers: { authorization: "Bearer ${AUTH_TOKEN}", content-type: application/json }',
    '      body: \'{"token": "${AUTH_TOKEN}"}\'',
    '',
  ].join('\n');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Parsed JSON, read field by field. */
type Json = ReturnType<typeof JSON.parse>;

interface Folder {
  result: Json;
  analysis: Json;
  profile: Json;
  intervals: Json[];
}

/** Every JSON and JSONL file of the folder parsed (a file that does not parse fails the test, naming it). */
function parseFolder(dir: string): Folder {
  const parsed = new Map<string, unknown>();
  for (const file of filesUnder(dir)) {
    const text = readFileSync(file, 'utf8');
    if (file.endsWith('.json')) parsed.set(file, JSON.parse(text));
    if (file.endsWith('.jsonl'))
      parsed.set(
        file,
        text
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line)),
      );
  }
  expect([...parsed.keys()].map((f) => f.slice(dir.length + 1)).sort()).toEqual(['analysis.json', 'intervals.jsonl', 'profile.json', 'result.json']);
  const at = (name: string): Json => parsed.get(join(dir, name));
  return { result: at('result.json'), analysis: at('analysis.json'), profile: at('profile.json'), intervals: at('intervals.jsonl') };
}

/** What a text search would have mangled: the schema names, the numbers, the interval log; and `stampede report` reads the folder. */
function expectWhole(dir: string, folder: Folder): void {
  expect(folder.result.schema).toBe(RESULT_SCHEMA);
  expect(folder.analysis.schema).toBe(ANALYSIS_SCHEMA);
  const r = folder.result.requests;
  expect(r.sent).toBeGreaterThan(0);
  expect(r.ok + r.failed).toBe(r.sent);
  expect(folder.result.latencyUs.count).toBe(r.ok + r.failed);
  expect(folder.intervals).toHaveLength(folder.result.intervals.count);
  expect(folder.intervals.reduce((sum: number, i) => sum + i.sent, 0)).toBe(r.sent);
  const report = stampede(['report', dir], 60_000);
  expect([report.status, report.stderr]).toEqual([0, '']);
  expect(report.stdout).toBe(`${join(dir, 'report.md')}\n${join(dir, 'report.html')}\n`);
}

describe('a secret whose text is everywhere', () => {
  let reference: Folder;
  beforeAll(() => {
    const profile = join(scratch, 'reference.yaml');
    writeFileSync(profile, MODEL_PROFILE('reference-key'));
    const out = join(scratch, 'reference');
    const run = stampede(['run', profile, '--out', out, '--quiet', '--set', `${SET_AUTHORIZATION}="reference-token"`]);
    expect([run.status, run.stderr]).toEqual([0, '']);
    reference = parseFolder(out);
  }, 120_000);

  for (const [value, where] of VALUES) {
    it(`${JSON.stringify(value)} (${where}) in a header of the profile and a --set, on the model: the folder parses, its numbers are the same run's, the headers read [redacted]`, {
      timeout: 120_000,
    }, () => {
      const profile = join(scratch, `model-${VALUES.findIndex(([v]) => v === value)}.yaml`);
      writeFileSync(profile, MODEL_PROFILE(value));
      const out = `${profile.slice(0, -'.yaml'.length)}-run`;
      const run = stampede(['run', profile, '--out', out, '--quiet', '--set', `${SET_AUTHORIZATION}=${JSON.stringify(value)}`]);
      expect([run.status, run.stderr]).toEqual([0, '']);
      expect(run.stdout).toBe(`${out}\n`);
      const folder = parseFolder(out);
      expectWhole(out, folder);
      // The same seeded run as the reference: only the secrets differ, so every measured number is equal.
      for (const field of ['requests', 'latencyUs', 'serviceTimeUs', 'byOutcome', 'durationMs', 'seed'])
        expect([field, folder.result[field]]).toEqual([field, reference.result[field]]);
      expect(folder.intervals.map((i) => [i.sent, i.ok, i.latencyUs])).toEqual(reference.intervals.map((i) => [i.sent, i.ok, i.latencyUs]));
      expect(folder.analysis.verdict).toBe('PASS');
      expect(folder.profile.http.requests.default.headers).toEqual({ 'x-api-key': REDACTED, authorization: REDACTED });
      expect(folder.profile.source.overrides).toEqual([`${SET_AUTHORIZATION}=${REDACTED}`]);
      expect(folder.result.profile.overrides).toEqual([`${SET_AUTHORIZATION}=${REDACTED}`]);
    });

    it(`${JSON.stringify(value)} (${where}) as \${AUTH_TOKEN} in a header, a URL query and a body, to a local server: sent as is, the folder parses, the references stay names`, {
      timeout: 120_000,
    }, async () => {
      const seen = { requests: 0, authorization: new Set<string>(), sig: new Set<string>(), bodies: new Set<string>() };
      const target = await startHttpTarget((req, res) => {
        seen.requests++;
        seen.authorization.add(String(req.headers.authorization));
        seen.sig.add(new URL(req.url ?? '/', 'http://x').searchParams.get('sig') ?? '');
        let body = '';
        req.on('data', (d) => (body += String(d)));
        req.on('end', () => {
          seen.bodies.add(body);
          res.end('ok');
        });
      });
      try {
        const profile = join(scratch, `http-${VALUES.findIndex(([v]) => v === value)}.yaml`);
        writeFileSync(profile, HTTP_PROFILE(target.url, 'hostile-values-http'));
        const out = `${profile.slice(0, -'.yaml'.length)}-run`;
        const run = await stampedeAsync(['run', profile, '--out', out, '--quiet'], 90_000, { AUTH_TOKEN: value });
        const folder = parseFolder(out);
        // A busy machine may make the generator's own measurement INVALID (exit 1); the folder is the same either way.
        expect([run.status, run.stderr]).toEqual([folder.analysis.verdict === 'PASS' ? 0 : 1, '']);
        expect(run.stdout).toBe(`${out}\n`);
        // Node's parser drops a header value's surrounding whitespace: eight spaces arrive as "Bearer".
        expect([...seen.authorization]).toEqual([`Bearer ${value}`.trim()]);
        expect([...seen.sig]).toEqual([value]);
        expect([...seen.bodies]).toEqual([`{"token": "${value}"}`]);
        expectWhole(out, folder);
        expect(folder.result.requests.sent).toBe(seen.requests);
        expect(folder.result.requests.failed).toBe(0);
        const written = folder.profile.http.requests.default;
        expect(written).toEqual({
          method: 'POST',
          path: '/item/{{key}}?sig=${AUTH_TOKEN}',
          headers: { authorization: REDACTED, 'content-type': 'application/json' },
          body: '{"token": "${AUTH_TOKEN}"}',
        });
      } finally {
        await target.close();
      }
    });
  }

  it('a line break: URL-encoded in a path and sent as is in a body; in a header it is exit 2 naming the variable, the field and its line, before any traffic or folder', {
    timeout: 120_000,
  }, async () => {
    const seen = { sig: new Set<string>(), bodies: new Set<string>() };
    const target = await startHttpTarget((req, res) => {
      seen.sig.add(new URL(req.url ?? '/', 'http://x').searchParams.get('sig') ?? '');
      let body = '';
      req.on('data', (d) => (body += String(d)));
      req.on('end', () => {
        seen.bodies.add(body);
        res.end('ok');
      });
    });
    try {
      const inHeader = join(scratch, 'line-break-header.yaml');
      writeFileSync(inHeader, HTTP_PROFILE(target.url, 'line-break'));
      const refusedOut = join(scratch, 'line-break-header-run');
      const refused = await stampedeAsync(['run', inHeader, '--out', refusedOut], 90_000, { AUTH_TOKEN: '\n' });
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain(`${inHeader}:12:33  http.requests.default.headers.authorization: environment variable AUTH_TOKEN holds a line break or NUL`);
      expect(refused.stderr).not.toContain('internal error');
      expect([seen.sig.size, existsSync(refusedOut)]).toEqual([0, false]);

      const noHeader = join(scratch, 'line-break-body.yaml');
      writeFileSync(noHeader, HTTP_PROFILE(target.url, 'line-break').replace('authorization: "Bearer ${AUTH_TOKEN}", ', ''));
      const out = join(scratch, 'line-break-body-run');
      const run = await stampedeAsync(['run', noHeader, '--out', out, '--quiet'], 90_000, { AUTH_TOKEN: '\n' });
      const folder = parseFolder(out);
      expect([run.status, run.stderr]).toEqual([folder.analysis.verdict === 'PASS' ? 0 : 1, '']);
      expect([[...seen.sig], [...seen.bodies]]).toEqual([['\n'], ['{"token": "\n"}']]);
      expectWhole(out, folder);
    } finally {
      await target.close();
    }
  });
});

describe('a long random secret', () => {
  it('in a header, a URL query, a body and a --set is sent, and its text is in no file of the run folder and not on the terminal', { timeout: 120_000 }, async () => {
    const token = `t0k+/=${randomBytes(16).toString('hex')}`;
    const literal = `k3y-${randomBytes(16).toString('hex')}`;
    const seen = { authorization: new Set<string>(), apiKey: new Set<string>(), sig: new Set<string>() };
    const target = await startHttpTarget((req, res) => {
      seen.authorization.add(String(req.headers.authorization));
      seen.apiKey.add(String(req.headers['x-api-key']));
      seen.sig.add(new URL(req.url ?? '/', 'http://x').searchParams.get('sig') ?? '');
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    try {
      const profile = join(scratch, 'random.yaml');
      writeFileSync(profile, HTTP_PROFILE(target.url, 'random-secret'));
      const out = join(scratch, 'random-run');
      const run = await stampedeAsync(['run', profile, '--out', out, '--set', `http.requests.default.headers.x-api-key=${literal}`], 90_000, { AUTH_TOKEN: token });
      const folder = parseFolder(out);
      expect(run.status).toBe(folder.analysis.verdict === 'PASS' ? 0 : 1);
      expect([[...seen.authorization], [...seen.apiKey], [...seen.sig]]).toEqual([[`Bearer ${token}`], [literal], [token]]);
      const report = stampede(['report', out, '--print'], 60_000);
      expect(report.status).toBe(0);
      const forms = [token, encodeURIComponent(token), JSON.stringify(token).slice(1, -1), literal];
      const texts = [...filesUnder(out).map((f) => [f, readFileSync(f, 'latin1')]), ['stdout', run.stdout], ['stderr', run.stderr], ['report', report.stdout]];
      for (const [where, text] of texts) for (const form of forms) expect([where, text!.includes(form)]).toEqual([where, false]);
      expect(folder.profile.http.requests.default.headers['x-api-key']).toBe(REDACTED);
      expect(report.stdout).toContain(`overrides: \`http.requests.default.headers.x-api-key=${REDACTED}\``);
    } finally {
      await target.close();
    }
  });
});
