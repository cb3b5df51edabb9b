import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stampede, stampedeAsync } from '../helpers/cli.ts';
import { docPages } from '../helpers/docs.ts';
import { type RunningMemcached, startMemcached } from '../helpers/memcached.ts';
import { type RunningRedis, startRedis } from '../helpers/redis.ts';
import { makeTestPki } from '../helpers/tls.ts';

/*
 * The README and the docs/ pages name fields of the run folder's JSON files: each backticked dotted path a page says a file
 * holds — `driver.transport.hitRatio`, `requests.{sent,ok}`, `generator: {cpu, …}` — must be there in
 * a real one. A claim is a code span in a clause that names the file (from `result.json` to the end of
 * its sentence, or to the next file named); `driver.…` is result.json's wherever it is written. A path
 * is checked from the file's root, then under the paths claimed before it in the clause (`driver.transport`
 * adds `tls.verified`), and a result.json claim may also be an interval gauge's key (`hits.memcached`).
 * Gauge names with a placeholder (`queueDepth.<service>`) are families, not paths: not checked here.
 * The files come from real runs: the model, http, https with HTTP/2, memcached, Redis, two segments and
 * their merge, a qualification.
 */

const PAGES = docPages();
const JSON_FILES = ['result.json', 'analysis.json', 'qualification.json'] as const;
type JsonFile = (typeof JSON_FILES)[number];
const FILE_NAMED = /\b(?:result|analysis|profile|qualification)\.json\b|\bintervals\.jsonl\b|\blatency\.hlog\b|\bsummary\.md\b|\breport\.(?:md|html)\b/g;

interface Claim {
  file: JsonFile;
  /** Dotted paths the code span names, braces expanded; `[]` is any element of an array. */
  paths: string[];
  text: string;
  /** Where: `docs/results.md:12`. */
  where: string;
  /** The paths claimed before it in the same clause, for a relative one. */
  under?: string[] | undefined;
}

/** `a.{b, c[{d, e}]}` → a.b, a.c[].d, a.c[].e; `g: {x, y}` → g.x, g.y; undefined when the span is no field path. */
function fieldPaths(code: string): string[] | undefined {
  const text = code
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^([a-z]\w*): \{/i, '$1.{');
  if (!/^[a-z][\w]*(\.[\w]+)*(\.\{.*\})?$/i.test(text) || !/[.{]/.test(text)) return undefined;
  if (/\.(ts|js|json|jsonl|hlog|md|html|yaml|csv|pem)$/.test(text)) return undefined;
  return expand(text);
}

function expand(text: string): string[] {
  const open = text.indexOf('{');
  if (open < 0) return [text];
  const head = text.slice(0, open);
  const inner = text.slice(open + 1, text.lastIndexOf('}'));
  return splitTop(inner).flatMap((item) => {
    const array = /^(\w+)\[\{(.*)\}\]$/.exec(item);
    if (array) return expand(`{${array[2]}}`).map((p) => `${head}${array[1]}[].${p}`);
    return expand(item).map((p) => `${head}${p}`);
  });
}

/** Splits at commas outside brackets and braces. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if ('{['.includes(text[i]!)) depth++;
    else if ('}]'.includes(text[i]!)) depth--;
    else if (text[i] === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out.filter(Boolean);
}

/** Every claim of a page about the run folder's JSON files. */
function readmeClaims(markdown: string, page = 'README.md'): Claim[] {
  const claims: Claim[] = [];
  const prose = markdown.replace(/```[\s\S]*?```/g, (block) => block.replace(/[^\n]/g, ' '));
  // Paragraphs and list items: a claim does not run on past either.
  for (const chunk of prose.matchAll(/(?:^|\n)((?:(?!\n\s*\n|\n\s*- )[\s\S])+)/g)) {
    let file: string | undefined;
    let under: string[] | undefined;
    let offset = chunk.index! + chunk[0].indexOf(chunk[1]!);
    for (const part of chunk[1]!.split(/(`[^`]+`)/)) {
      if (part.startsWith('`')) {
        const code = part.slice(1, -1);
        const named = code.match(FILE_NAMED);
        if (named?.[0] === code) {
          file = code;
          under = undefined;
        } else {
          const paths = fieldPaths(code);
          const owner = paths?.[0]?.startsWith('driver.') ? 'result.json' : file;
          if (paths && owner !== undefined && (JSON_FILES as readonly string[]).includes(owner)) {
            const line = markdown.slice(0, offset).split('\n').length;
            claims.push({ file: owner as JsonFile, paths, text: code, where: `${page}:${line}`, under });
            under = [...(under ?? []), ...paths];
            file = owner;
          }
        }
      } else {
        // A sentence's end closes the clause; a file named in prose opens one.
        const sentences = part.split(/[.·!?](?:\s+|$)/);
        sentences.forEach((sentence, i) => {
          if (i > 0) [file, under] = [undefined, undefined];
          const named = sentence.match(FILE_NAMED);
          if (named) [file, under] = [named.at(-1), undefined];
        });
      }
      offset += part.length;
    }
  }
  return claims;
}

/** Whether `path` (`a.b[].c`) leads somewhere in `value`. */
function has(value: unknown, path: string): boolean {
  const [head, ...rest] = path.split('.');
  if (head === undefined) return true;
  const array = head.endsWith('[]');
  const key = array ? head.slice(0, -2) : head;
  if (value === null || typeof value !== 'object' || !(key in value)) return false;
  const next = (value as Record<string, unknown>)[key];
  if (rest.length === 0) return !array || Array.isArray(next);
  if (array) return Array.isArray(next) && next.some((item) => has(item, rest.join('.')));
  return has(next, rest.join('.'));
}

function gaugeKeys(result: unknown): string[] {
  const gauges = (result as { intervals?: { gauges?: object } }).intervals?.gauges ?? {};
  return Object.keys(gauges);
}

/** Why a claim is not borne out by `files`, or undefined when every path of it is there. */
function unmet(claim: Claim, files: Record<JsonFile, unknown[]>): string | undefined {
  const missing = claim.paths.filter((path) => {
    const found = (prefix: string) => files[claim.file].some((f) => has(f, `${prefix}${path}`));
    if (found('')) return false;
    if (claim.under?.some((base) => found(`${base}.`))) return false;
    return !(claim.file === 'result.json' && files['result.json'].some((r) => gaugeKeys(r).includes(path)));
  });
  return missing.length === 0 ? undefined : `${claim.where}: \`${claim.text}\` — ${claim.file} has no ${missing.join(', ')}`;
}

/** The claims of the README and every docs/ page. */
const allClaims = (): Claim[] => PAGES.flatMap((page) => readmeClaims(page.text, page.file));

describe('the docs’ claims about the JSON files', () => {
  it('are found: paths, braces expanded, relative ones and gauge keys', () => {
    expect(fieldPaths('driver.transport.{hits, shards[{server, share}], shardSkew}')).toEqual([
      'driver.transport.hits',
      'driver.transport.shards[].server',
      'driver.transport.shards[].share',
      'driver.transport.shardSkew',
    ]);
    expect(fieldPaths('generator: {cpu, cpuPeak}')).toEqual(['generator.cpu', 'generator.cpuPeak']);
    expect(fieldPaths('latency.hlog')).toBeUndefined();
    expect(fieldPaths('queueDepth.<service>')).toBeUndefined();
    expect(fieldPaths('inFlight')).toBeUndefined();
    const text = 'A run: `result.json` carries `requests.{sent, ok}`; `driver.transport` adds `tls.verified`. Then `analysis.json` has `slo.pass`, and `other.thing`.';
    expect(readmeClaims(text).map((c) => [c.file, c.text, c.under])).toEqual([
      ['result.json', 'requests.{sent, ok}', undefined],
      ['result.json', 'driver.transport', ['requests.sent', 'requests.ok']],
      ['result.json', 'tls.verified', ['requests.sent', 'requests.ok', 'driver.transport']],
      ['analysis.json', 'slo.pass', undefined],
      ['analysis.json', 'other.thing', ['slo.pass']],
    ]);
    // The pages make such claims: the test reads them, not nothing.
    const claims = allClaims();
    expect(claims.filter((c) => c.file === 'result.json').length).toBeGreaterThanOrEqual(6);
    expect(claims.map((c) => c.text)).toEqual(expect.arrayContaining(['driver.model']));
  });

  describe('in real run folders', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'stampede-readme-fields-'));
    const files: Record<JsonFile, unknown[]> = { 'result.json': [], 'analysis.json': [], 'qualification.json': [] };
    let memcached: RunningMemcached;
    let redis: RunningRedis;
    const servers: { close(): void }[] = [];

    const read = (dir: string, ...names: JsonFile[]) => {
      for (const name of names) files[name].push(JSON.parse(readFileSync(join(dir, name), 'utf8')));
    };
    const profile = (name: string, text: string) => {
      const file = join(scratch, `${name}.yaml`);
      writeFileSync(file, `name: ${name}\nphases: [{ type: steady, rate: 50, duration: 1s }]\nkeys: { count: 100 }\n${text}`);
      return file;
    };
    const runInto = async (name: string, args: string[]) => {
      const dir = join(scratch, name);
      const run = await stampedeAsync(['run', ...args, '--out', dir, '--quiet']);
      expect(run.stderr, name).toBe('');
      read(dir, 'result.json', 'analysis.json');
      return dir;
    };

    beforeAll(async () => {
      [memcached, redis] = await Promise.all([startMemcached(), startRedis()]);
      const pki = await makeTestPki(scratch);
      writeFileSync(join(scratch, 'ca.pem'), pki.caCert);
      const http = createServer((_req, res) => res.end('ok'));
      const h2 = createSecureServer({ key: pki.server.key, cert: pki.server.cert }, (_req, res) => res.end('ok'));
      for (const server of [http, h2]) {
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        servers.push(server);
      }
      const port = (server: { address(): unknown }) => (server.address() as AddressInfo).port;
      const small = 'test/fixtures/cli/small.yaml';
      await runInto('model', [small]);
      await runInto('http', [profile('http', ''), '--target', `http://127.0.0.1:${port(http)}`]);
      await runInto('h2', [profile('h2', 'http: { http2: true, tls: { ca: ca.pem, servername: api.test } }\n'), '--target', `https://127.0.0.1:${port(h2)}`]);
      // adds beside the gets: the docs name the outcome counts of a write (`operations.add.exists`)
      await runInto('memcached', [profile('memcached', 'mix: [{ kind: get, weight: 4 }, { kind: add, weight: 1 }]\n'), '--target', `memcached://${memcached.address}`]);
      await runInto('redis', [profile('redis', 'mix: [{ kind: get, weight: 4 }, { kind: set, weight: 1 }]\n'), '--target', `redis://${redis.address}`]);
      const segments = await Promise.all([0, 1].map((i) => runInto(`segment-${i}`, [small, '--segment', `${i}/2`])));
      const merged = join(scratch, 'merged');
      expect(stampede(['merge', ...segments, '--out', merged, '--quiet']).stderr).toBe('');
      read(merged, 'result.json', 'analysis.json');
      const qualification = join(scratch, 'qualification');
      expect(stampede(['qualify', small, '--step', '1s', '--warmup', '0s', '--max-steps', '3', '--out', qualification, '--quiet']).stderr).toBe('');
      read(qualification, 'qualification.json');
    }, 600_000);

    afterAll(async () => {
      for (const server of servers) server.close();
      await Promise.all([memcached?.stop(), redis?.stop()]);
      rmSync(scratch, { recursive: true, force: true });
    });

    it('hold every field the docs say they hold', () => {
      const failures = allClaims().flatMap((claim) => unmet(claim, files) ?? []);
      expect(failures).toEqual([]);
    });
  });
});
