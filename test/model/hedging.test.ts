import { describe, expect, it } from 'vitest';
import { runModel } from './support/run.ts';

/**
 * Hedged requests (Dean & Barroso, The Tail at Scale): 2% of requests take 100 ms instead of
 * ~2 ms (a GC pause, a slow disk). A caller that sends the same request again when no reply came
 * within 10 ms (or its p95) gets the fast copy's answer: its p99 falls from ~100 ms to ~12 ms, for
 * a few percent more requests at the server.
 */
function tail(seed: number, hedge?: Record<string, unknown>) {
  return {
    seed,
    arrivals: 'poisson' as const,
    phases: [{ type: 'steady' as const, rate: 2000, duration: 20 }],
    topology: {
      entry: 'api',
      caller: 'clients',
      clientGroups: { clients: { instances: 10, pool: { maxIdle: 'inf' }, ...(hedge ? { hedge } : {}) } },
      services: {
        api: {
          workers: 'inf',
          serviceTime: {
            type: 'mixture',
            of: [
              { weight: 98, type: 'uniform', min: '1ms', max: '3ms' },
              { weight: 2, type: 'uniform', min: '95ms', max: '105ms' },
            ],
          },
        },
      },
    },
  };
}

type Hedges = { attempts: number; hedges: number; hedgesSkipped: number; closes: number };
const groupOf = (run: Awaited<ReturnType<typeof runModel>>) => run.details.clientGroups['clients'] as unknown as Hedges;

describe('hedged requests (clientGroups.<group>.hedge)', () => {
  it.each([1, 2, 3])('seed %i: a hedge after 10 ms cuts the p99 from the slow mode (~100 ms) to ~12 ms, for about 2 in 100 more requests', { timeout: 30_000 }, async (seed) => {
    const plain = await runModel(tail(seed));
    const hedged = await runModel(tail(seed, { after: '10ms' }));
    expect(plain.recorder.percentile(99)).toBeGreaterThan(90_000);
    expect(hedged.recorder.percentile(99)).toBeLessThan(16_000);
    const g = groupOf(hedged);
    expect(g.hedges / g.attempts).toBeGreaterThan(0.015);
    expect(g.hedges / g.attempts).toBeLessThan(0.03);
    expect(groupOf(plain).hedges).toBe(0);
    // The server did the hedges' work too; the loser's connection was closed, not reused.
    expect(hedged.details.services['api']!.accepted).toBe(g.attempts + g.hedges);
    expect(g.closes).toBe(g.hedges);
  });

  it.each([1, 2, 3])('seed %i: a hedge at the p95 of recent replies does the same once the estimate has its first 1,024 replies', { timeout: 30_000 }, async (seed) => {
    const hedged = await runModel(tail(seed, { percentile: 95 }));
    const g = groupOf(hedged);
    // The p95 reply time is ~3 ms (the top of the fast mode): the slow 2% get a hedge, and at
    // most a few fast ones; none before the estimate exists.
    expect(g.hedges / g.attempts).toBeGreaterThan(0.015);
    expect(g.hedges / g.attempts).toBeLessThan(0.06);
    expect(hedged.recorder.percentile(99)).toBeLessThan(16_000);
  });

  it('a hedge needs a connection free at once: with every connection busy it is skipped', async () => {
    const run = await runModel(tail(1, { after: '10ms' }), {});
    const bounded = await runModel({
      ...tail(1, { after: '10ms' }),
      topology: { ...tail(1).topology, clientGroups: { clients: { instances: 10, pool: { maxOpen: 1, maxIdle: 'inf' }, hedge: { after: '10ms' } } } },
    });
    expect(groupOf(run).hedgesSkipped).toBe(0);
    expect(groupOf(bounded).hedgesSkipped).toBeGreaterThan(0);
  });
});
