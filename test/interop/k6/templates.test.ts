import { describe, expect, it } from 'vitest';
import { EVERY_LAW, exported, scratchDir } from './helpers.ts';

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
});
