import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportK6Script } from '../../../src/interop/k6/export/index.ts';
import { loadK6Script } from '../../../src/interop/k6/stand-in/load.ts';
import { makeProfile } from '../../helpers/profile.ts';
import { EVERY_LAW, exported, scratchDir } from './helpers.ts';

/** `${NAME}` in each template field: the path (URL-encoded when sent), a header and the body. */
const WITH_SECRETS = makeProfile({
  name: 'with-secrets',
  phases: [{ type: 'steady', rate: 10, duration: '30s' }],
  target: 'http://127.0.0.1:8080',
  http: {
    requests: {
      default: {
        method: 'POST',
        path: '/t/${TENANT}/{{key}}',
        headers: { authorization: 'Bearer ${AUTH_TOKEN}', 'x-note': 'costs `${AUTH_TOKEN}` \\ ${{literal}}' },
        body: '{"token": "${AUTH_TOKEN}", "keys": {{keys:json}}}',
      },
    },
  },
});

/* The exported script fills request templates as stampede's HTTP driver does, and draws a client-scoped hot key only for its client. */

describe('the exported script’s requests', () => {
  it('fill every placeholder: path fields URL-encoded, headers and body as they are', async () => {
    const { script } = await exported(EVERY_LAW, scratchDir());
    const send = script.exports.client_a as () => void;
    for (let i = 0; i < 400; i++) {
      Object.assign(script.clock, { elapsedMs: 5000, iteration: i });
      send();
    }
    const puts = script.requests.filter((r) => r.method === 'PUT');
    expect(puts.length).toBeGreaterThan(150);
    for (const r of puts) {
      const url = new URL(r.url);
      const [, kind, key] = url.pathname.split('/');
      expect(kind).toBe('set');
      expect(url.searchParams.get('n')).toBe(String(JSON.parse(String(r.body).split(' ').pop()!).length));
      expect(Number(url.searchParams.get('seq'))).toBeGreaterThanOrEqual(0);
      expect(r.params?.headers).toEqual({ 'x-client': 'a' });
      const [keys, value, valueSize, json] = String(r.body).split(' ');
      expect(keys!.split(',')[0]).toBe(decodeURIComponent(key!));
      expect(value!.length).toBe(Number(valueSize));
      expect(JSON.parse(json!)).toEqual(keys!.split(','));
      expect(r.params?.tags).toMatchObject({ kind: 'set', client: 'a', window: 'measured', name: 'PUT /{{kind}}/{{key}}?n={{batch}}&seq={{seq}}' });
    }
    expect(script.requests.some((r) => r.method === 'GET' && r.url === 'http://127.0.0.1:8080/')).toBe(true);
  });

  it('give a hot key scoped to one client only to that client', async () => {
    const { script } = await exported(EVERY_LAW, scratchDir());
    for (const client of ['client_a', 'client_b']) {
      for (let i = 0; i < 500; i++) {
        Object.assign(script.clock, { elapsedMs: 5000, iteration: i });
        (script.exports[client] as () => void)();
      }
    }
    const keysOf = (client: string) =>
      script.requests.filter((r) => r.params?.tags?.client === client && r.method === 'PUT').flatMap((r) => String(r.body).split(' ')[0]!.split(','));
    const hotShare = (client: string) => keysOf(client).filter((k) => k === 'k').length / keysOf(client).length;
    expect(hotShare('a')).toBeGreaterThan(0.1);
    expect(hotShare('b')).toBe(0);
  });

  it('read ${NAME} from __ENV as template literals, never writing the value; the tag keeps the path as written', async () => {
    const text = exportK6Script(WITH_SECRETS);
    expect(text).toContain('authorization: `Bearer ${__ENV.AUTH_TOKEN}`');
    expect(text).toContain('path: `/t/${encodeURIComponent(__ENV.TENANT)}/{{key}}`');
    expect(text).toContain('body: `{\\"token\\": \\"${__ENV.AUTH_TOKEN}\\", \\"keys\\": {{keys:json}}}`');
    expect(text).not.toContain("'Bearer ${AUTH_TOKEN}'");
    const dir = scratchDir();
    const file = join(dir, 'secrets.ts');
    writeFileSync(file, text);
    const env = { AUTH_TOKEN: 'tok-en `x` ${y}', TENANT: 'a/b c' };
    const script = await loadK6Script(file, env);
    Object.assign(script.clock, { elapsedMs: 5000, iteration: 0 });
    (script.exports.client_default as () => void)();
    const [sent] = script.requests;
    expect(sent!.url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/t\/a%2Fb%20c\/key%3A\d+$/);
    expect(sent!.params?.headers).toEqual({ authorization: 'Bearer tok-en `x` ${y}', 'x-note': 'costs `tok-en `x` ${y}` \\ ${{literal}}' });
    expect(JSON.parse(String(sent!.body)).token).toBe(env.AUTH_TOKEN);
    expect(sent!.params?.tags?.name).toBe('POST /t/${TENANT}/{{key}}');
    expect(() => (script.exports.setup as () => void)()).not.toThrow();
  });

  it('stop in setup() when a variable the templates read is unset, as stampede refuses the run', async () => {
    const dir = scratchDir();
    const file = join(dir, 'unset.ts');
    writeFileSync(file, exportK6Script(WITH_SECRETS));
    const script = await loadK6Script(file, { TENANT: 't' });
    expect(() => (script.exports.setup as () => void)()).toThrow('environment variable AUTH_TOKEN is not set: k6 run -e AUTH_TOKEN=… <script>');
    expect(exportK6Script(EVERY_LAW)).not.toContain('export function setup');
  });
});
