import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProfile } from '../../src/pipeline/run.ts';
import { startMemcached, type RunningMemcached } from '../helpers/memcached.ts';
import { makeProfile } from '../helpers/profile.ts';

/*
 * The TTL a kind's writes set reaches memcached as each item's expiry. memcached itself says what
 * it stored: `lru_crawler metadump all` lists every item with its expiry as a Unix time (-1: never).
 * Loads are a few hundred sets to 127.0.0.1, each run half a second.
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-mc-ttl-'));
let server: RunningMemcached;
beforeAll(async () => {
  server = await startMemcached();
});
afterAll(async () => {
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** Each key's remaining TTL as memcached states it (meta get `t`: seconds; -1 never expires; undefined: not stored). */
function remainingTtls(port: number, keys: readonly string[]): Promise<(number | undefined)[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${keys.map((k) => `mg ${k} t`).join('\r\n')}\r\nmn\r\n`));
    let text = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error('meta get timed out')));
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (!text.endsWith('MN\r\n')) return;
      socket.end();
      const lines = text.split('\r\n').slice(0, keys.length);
      resolve(lines.map((line) => (line.startsWith('HD') ? Number(/\bt(-?\d+)/.exec(line)![1]) : undefined)));
    });
    socket.on('error', reject);
  });
}

/** Sets 50 keys with the kind's ttl (200 sets, uniform: every key set), then asks memcached each key's remaining TTL. */
async function setKeys(name: string, prefix: string, ttl: string | undefined): Promise<(number | undefined)[]> {
  const profile = makeProfile({
    name,
    arrivals: 'constant',
    phases: [{ type: 'steady', rate: 400, duration: '0.5s' }],
    keys: { count: 50, prefix, popularity: { type: 'uniform' } },
    mix: [{ kind: 'set', weight: 1, valueSize: 100, ...(ttl !== undefined && { ttl }) }],
  } as never);
  const { result } = await runProfile(profile, { target: `memcached://${server.address}`, outDir: join(scratch, name) });
  expect(result.requests.ok).toBe(200);
  return remainingTtls(
    server.port,
    Array.from({ length: 50 }, (_, i) => `${prefix}${i}`),
  );
}

describe('TTLs on sets reach memcached as each item’s expiry (real memcached on 127.0.0.1)', () => {
  it('a kind’s ttl becomes the expiry memcached stores; no ttl never expires; past 30 days it is sent as a Unix time', async () => {
    // Each set expires 120 s after it was stored: at most the half second of the run and a second of rounding ago.
    for (const left of await setKeys('ttl-short', 'short:', '120s')) {
      expect(left).toBeGreaterThanOrEqual(118);
      expect(left).toBeLessThanOrEqual(120);
    }
    expect(new Set(await setKeys('ttl-none', 'forever:', undefined))).toEqual(new Set([-1]));
    // 960 h = 40 days: sent as now + 40 days, which memcached reads as a Unix time.
    for (const left of await setKeys('ttl-long', 'long:', '960h')) expect(Math.abs(left! - 40 * 86_400)).toBeLessThanOrEqual(2);
  });
});
