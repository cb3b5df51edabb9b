import { judgeGenerator } from '../../src/analysis/generator.ts';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RunStartError } from '../../src/driver/errors.ts';
import { runProfile } from '../../src/pipeline/run.ts';
import { makeProfile } from '../helpers/profile.ts';
import { freePort, startHttpTarget, startStallingTarget, startTcpTarget, type RunningTarget } from '../helpers/targets.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const running: RunningTarget[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'stampede-http-'));
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.close()));
});
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

let runs = 0;
async function run(input: Parameters<typeof makeProfile>[0], target: string) {
  return (await runProfile(makeProfile(input), { target, outDir: join(scratch, String(runs++)) })).result;
}

describe('http driver (open loop, real sockets on 127.0.0.1)', () => {
  it('reports the stalls of a target that stalls S ms every P ms in its p99, as only an open-loop generator can', async () => {
    /*
     * Analytic p99. Arrivals are constant at rate λ, the target stalls for S every P (S < P), and a
     * request that arrives at phase φ of a period (φ = 0 at the stall's start) waits S − φ when
     * φ < S, else nothing; on top of that every request takes the base round trip b. Over whole
     * periods φ is uniform on [0, P) (the arrival grid, 1 ms, is fine against P), so the latency
     * L = b + max(0, S − φ) is a mixture: with probability 1 − S/P it is b, with probability S/P it
     * is b + U(0, S). Its tail is P(L > b + x) = (S − x)/P for 0 ≤ x < S, so the q-quantile for
     * q > 1 − S/P solves (S − x)/P = 1 − q: x = S − (1 − q)·P, and
     *     p99 = b + S − 0.01·P        (here S = 100 ms, P = 500 ms: 95 ms + b).
     * A closed-loop generator would report ≈ b: its connections wait out the stall and send nothing.
     *
     * That p99 exactly is checked in virtual time (test/driver-core/open-loop.test.ts): here a busy
     * machine can only add to it. What holds however busy the machine is: a request intended at
     * phase φ < S finishes no earlier than S − φ after its intended time (sent during the stall, it
     * waits for its end; sent later, it was already that late), so p99 ≥ S − 0.01·P = 95 ms, give or
     * take the 1 ms arrival grid: asserted with a 10% margin.
     */
    const S = 100;
    const P = 500;
    const target = await startStallingTarget(S, P);
    running.push(target);
    const result = await run(
      { name: 'stall', arrivals: 'constant', phases: [{ type: 'steady', rate: 1000, duration: '3s' }], http: { connections: 16, pipelining: 16 } } as never,
      target.url,
    );
    expect(result.requests.ok).toBe(3000);
    expect(result.requests.dropped).toBe(0);
    expect(result.latencyUs.p99).toBeGreaterThanOrEqual(0.9 * (S - 0.01 * P) * 1000);
    expect(result.intervals.series[0]!.gauges).toHaveProperty('generatorLagMs');
    expect(result.intervals.series[0]!.gauges).toHaveProperty('generatorCpu');
    expect(result.gauges['generatorCpu']).toMatchObject({ family: 'generator', unit: 'cores' });
  });

  it('substitutes keys, batch and values into request templates and classifies status codes', async () => {
    const bodies: unknown[] = [];
    const paths: string[] = [];
    const target = await startHttpTarget((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        paths.push(req.url ?? '');
        if (req.url?.startsWith('/xrpc/getPostRecord')) {
          bodies.push(JSON.parse(body));
          // Chunked: two writes without a Content-Length.
          res.write('{"records":');
          res.end('[]}');
        } else if (req.url?.startsWith('/missing/')) {
          res.statusCode = 404;
          res.end('no');
        } else {
          res.statusCode = 503;
          res.end();
        }
      });
    });
    running.push(target);
    const result = await run(
      {
        name: 'templates',
        arrivals: 'constant',
        phases: [{ type: 'steady', rate: 300, duration: '1s' }],
        mix: [
          { kind: 'getPostRecord', weight: 2, batch: { type: 'uniform', min: 3, max: 8 } },
          { kind: 'missing', weight: 1 },
          { kind: 'broken', weight: 1 },
        ],
        keys: { count: 1000, prefix: 'at://post/' },
        valueSize: 16,
        http: {
          connections: 4,
          pipelining: 4,
          requests: {
            getPostRecord: {
              method: 'POST',
              path: '/xrpc/getPostRecord',
              headers: { 'content-type': 'application/json' },
              body: '{"uris": {{keys:json}}, "n": {{batch}}, "v": "{{value}}"}',
            },
            missing: { path: '/missing/{{key}}' },
            default: { path: '/broken' },
          },
        },
      } as never,
      target.url,
    );
    expect(result.requests.sent).toBe(300);
    expect(result.requests.inFlightAtEnd).toBe(0);
    const posts = bodies as { uris: string[]; n: number; v: string }[];
    expect(posts.length).toBe(result.byKind['getPostRecord']!.requests);
    for (const b of posts) {
      expect(b.uris.length).toBe(b.n);
      expect(b.n).toBeGreaterThanOrEqual(3);
      expect(b.uris[0]).toMatch(/^at:\/\/post\/\d+$/);
      expect(b.v).toBe('v'.repeat(16));
    }
    expect(paths.some((p) => /^\/missing\/at%3A%2F%2Fpost%2F\d+$/.test(p))).toBe(true);
    expect(result.byKind['getPostRecord']!.failed).toBe(0);
    expect(result.errors['status_4xx']).toBe(result.byKind['missing']!.requests);
    expect(result.errors['status_5xx']).toBe(result.byKind['broken']!.requests);
  });

  it('completes a run against a target that resets and then refuses connections, counting both', async () => {
    // The target's phases follow the traffic it sees, not the wall clock, so a slow or busy machine
    // shifts them but cannot skip one: it answers the first 100 requests, then resets every
    // connection that sends data; at the 10th reset it stops listening (dials are refused) for
    // 300 ms, then listens again and answers on the connections it accepts from then on.
    const ANSWERED_FIRST = 100;
    let answered = 0;
    let resets = 0;
    let reopened = false;
    let reopen: NodeJS.Timeout | undefined;
    const respond = (socket: Socket) => {
      const acceptedAfterReopen = reopened;
      let pending = '';
      socket.on('data', (data) => {
        if (answered >= ANSWERED_FIRST && !acceptedAfterReopen) {
          if (++resets === 10) {
            target.server.close();
            reopen = setTimeout(() => {
              reopened = true;
              target.server.listen(target.port, '127.0.0.1');
            }, 300);
          }
          return socket.resetAndDestroy();
        }
        pending += data.toString('latin1');
        let end: number;
        while ((end = pending.indexOf('\r\n\r\n')) >= 0) {
          pending = pending.slice(end + 4);
          answered++;
          socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
        }
      });
      socket.on('error', () => {});
    };
    const target = await startTcpTarget(respond);
    running.push(target);
    try {
      const result = await run(
        { name: 'faults', arrivals: 'constant', phases: [{ type: 'steady', rate: 400, duration: '1.5s' }], http: { connections: 4, pipelining: 2, timeout: '500ms' } } as never,
        target.url,
      );
      expect(result.requests.scheduled).toBe(600);
      expect(result.requests.sent + result.requests.notSent + result.requests.dropped).toBe(600);
      expect(result.requests.inFlightAtEnd).toBe(0);
      expect(result.errors['reset'] ?? 0).toBeGreaterThan(0);
      expect(result.errors['refused'] ?? 0).toBeGreaterThan(0);
      expect(result.requests.ok).toBeGreaterThanOrEqual(ANSWERED_FIRST);
      expect(result.requests.ok + result.requests.failed).toBe(result.requests.sent + result.requests.notSent);
    } finally {
      clearTimeout(reopen);
    }
  });

  it('fails requests a target never answers as timeout; a closed port cannot start the run', async () => {
    const target = await startHttpTarget((req) => req.resume());
    running.push(target);
    const result = await run(
      { name: 'hang', arrivals: 'constant', phases: [{ type: 'steady', rate: 100, duration: '0.5s' }], http: { connections: 2, pipelining: 50, timeout: '200ms' } } as never,
      target.url,
    );
    expect(result.errors['timeout']).toBe(50);
    const closedTarget = `http://127.0.0.1:${await freePort()}`;
    const closed = run({ name: 'closed', arrivals: 'constant', phases: [{ type: 'steady', rate: 100, duration: '0.3s' }] } as never, closedTarget);
    await expect(closed).rejects.toThrow(RunStartError);
    await expect(closed).rejects.toThrow(`${closedTarget}: no connection could be made to any server before the run`);
  });

  it('drops requests beyond the in-flight cap, counts them, and marks the generator saturated', async () => {
    const target = await startStallingTarget(400, 1000);
    running.push(target);
    const result = await run(
      { name: 'capped', arrivals: 'constant', phases: [{ type: 'steady', rate: 200, duration: '1s' }], http: { connections: 5, pipelining: 1, inFlightCap: 5 } } as never,
      target.url,
    );
    expect(result.requests.dropped).toBeGreaterThan(0);
    expect(result.requests.sent + result.requests.dropped).toBe(200);
    expect(result.errors['dropped']).toBe(result.requests.dropped);
    expect(result.generator?.dropped).toBe(result.requests.dropped);
    const judged = judgeGenerator(result.generator!);
    expect(judged.saturated).toBe(true);
    expect(judged.reasons.join(' ')).toMatch(/dropped at the in-flight cap \(5\)/);
  });
});
