import { describe, expect, it } from 'vitest';
import { runModel, type TestProfile } from './support/run.ts';

/** A steady, evenly spaced load: `rate` requests/s of `batch` keys for `seconds`. */
function load(rate: number, seconds: number, batch = 1): Omit<TestProfile, 'topology'> {
  return { arrivals: 'constant', phases: [{ type: 'steady', rate, duration: seconds }], batch, keys: { count: 1000 } };
}

/** api fans each request out to a cache over group `mc` (one call per key, all at once). */
function fanOutToCache(pool: Record<string, unknown>, host: Record<string, unknown>) {
  return {
    entry: 'api',
    hosts: { box: host },
    clientGroups: { mc: { host: 'box', pool } },
    services: { api: { workers: 'inf', calls: [{ to: 'mc', via: 'mc', perItem: true }] } },
    caches: { mc: { workers: 'inf', serviceTime: '1ms' } },
  };
}

describe('connection pools and host ports', () => {
  it('closes releases beyond maxIdle: TIME_WAIT builds up to closes/s × hold and stays there', async () => {
    // 100 req/s × 10 keys, 10 ms apart: each request opens 8 new connections (2 idle reused) and closes 8.
    const { details, recorder } = await runModel({ ...load(100, 10, 10), topology: fanOutToCache({ maxIdle: 2 }, { timeWait: '2s' }) });
    const started = details.requests.started;
    expect(started).toBe(1000);
    expect(details.requests.succeeded).toBe(started);
    expect(details.clientGroups['mc']!.closes).toBe(8 * started);
    expect(details.clientGroups['mc']!.dials).toBe(8 * started + 2);
    // 800 closes/s held 2 s: a plateau of ~1,600 ports in TIME_WAIT from the third second on.
    const timeWait = recorder.intervals.map((g) => g['timeWaitConnections']!);
    expect(timeWait[0]).toBeGreaterThan(700);
    expect(timeWait[0]).toBeLessThan(900);
    for (const t of timeWait.slice(2, 9)) {
      expect(t).toBeGreaterThanOrEqual(1580);
      expect(t).toBeLessThanOrEqual(1620);
    }
  });

  it('keeps connections when maxIdle covers the fan-out: nothing closes, no TIME_WAIT', async () => {
    const { details, recorder } = await runModel({ ...load(100, 5, 10), topology: fanOutToCache({ maxIdle: 10 }, {}) });
    expect(details.clientGroups['mc']!.dials).toBe(10);
    expect(details.clientGroups['mc']!.closes).toBe(0);
    expect(Math.max(...recorder.intervals.map((g) => g['timeWaitConnections']!))).toBe(0);
  });

  it('fails dials with dial_error once open + TIME_WAIT fill the port range', async () => {
    // 1,000 ports, 60 s TIME_WAIT, 8 closes per request: the range is gone after ~124 requests (~1.24 s).
    const { details, recorder } = await runModel({ ...load(100, 3, 10), topology: fanOutToCache({ maxIdle: 2 }, { portRange: 1000 }) });
    const host = details.hosts['box']!;
    expect(host.portsHighWaterPerTuple).toBe(1000);
    expect(host.timeWaitHighWaterPerTuple).toBeLessThanOrEqual(1000);
    const firstDialError = recorder.firstFailureUs.get('dial_error')!;
    expect(firstDialError).toBeGreaterThan(1_200_000);
    expect(firstDialError).toBeLessThan(1_300_000);
    expect(details.requests.succeeded).toBeGreaterThanOrEqual(120);
    expect(details.requests.succeeded).toBeLessThanOrEqual(125);
    expect(recorder.failures('dial_error')).toBe(details.requests.failed);
    expect(details.clientGroups['mc']!.dialErrors).toBeGreaterThan(0);
  });
});

describe('pool checkout', () => {
  /** 50 req/s to a service that serves 10/s, through a pool of one connection. */
  function slowBehindOneConnection(checkoutTimeout: string, maxOpen = 1) {
    return {
      ...load(50, 2),
      topology: {
        entry: 'api',
        clientGroups: { toSlow: { pool: { maxOpen, checkoutTimeout } } },
        services: { api: { workers: 'inf', calls: [{ to: 'slow', via: 'toSlow' }] }, slow: { workers: 1, serviceTime: '100ms' } },
      },
    };
  }

  it('with checkoutTimeout "inf" waiters hang until the drain limit (unfinished), none time out', async () => {
    const { details, recorder } = await runModel(slowBehindOneConnection('inf'), { drainUs: 3_000_000 });
    const waiters = recorder.intervals.map((g) => g['checkoutWaiters']!);
    expect(waiters[1]!).toBeGreaterThan(waiters[0]!);
    expect(details.clientGroups['toSlow']!.waitingHighWater).toBeGreaterThan(70);
    expect(details.clientGroups['toSlow']!.checkoutTimeouts).toBe(0);
    expect(recorder.failures('checkout_timeout')).toBe(0);
    // ~50 served in 5 s; the rest still waiting at 2 s + 3 s of drain
    expect(recorder.failures('unfinished')).toBeGreaterThan(40);
    expect(details.requests.succeeded).toBeGreaterThan(40);
  });

  it('with a finite checkoutTimeout waiters fail with checkout_timeout and nothing hangs', async () => {
    const { details, recorder } = await runModel(slowBehindOneConnection('250ms'), { drainUs: 3_000_000 });
    expect(recorder.failures('checkout_timeout')).toBeGreaterThan(50);
    expect(recorder.failures('unfinished')).toBe(0);
    expect(details.clientGroups['toSlow']!.checkoutTimeouts).toBe(recorder.failures('checkout_timeout'));
    // At most 250 ms waiting plus 100 ms of service.
    expect(recorder.percentile(100)).toBeLessThanOrEqual(350_000);
  });

  it('maxOpen 0 switches the calls off: pool_disabled, no dials', async () => {
    const { details, recorder } = await runModel(slowBehindOneConnection('inf', 0));
    expect(recorder.failures('pool_disabled')).toBe(details.requests.started);
    expect(details.clientGroups['toSlow']!.dials).toBe(0);
  });
});

describe('timeouts and retries', () => {
  it('retries a timed-out attempt on a new connection after backoff; server work is not cancelled', async () => {
    const { details, recorder } = await runModel(
      {
        ...load(10, 2),
        topology: {
          entry: 'api',
          clientGroups: { toSlow: { timeout: '10ms', retries: { count: 2, backoff: { base: '5ms', max: '1s', jitter: 'none' } } } },
          services: { api: { workers: 'inf', calls: [{ to: 'slow', via: 'toSlow' }] }, slow: { workers: 'inf', serviceTime: '100ms' } },
        },
      },
      { drainUs: 1_000_000 },
    );
    const n = details.requests.started;
    const group = details.clientGroups['toSlow']!;
    expect(recorder.failures('timeout')).toBe(n);
    expect(group.attempts).toBe(3 * n);
    expect(group.retries).toBe(2 * n);
    expect(group.timeouts).toBe(3 * n);
    // Each timeout closes its connection, so each retry dials again.
    expect(group.closes).toBe(3 * n);
    expect(group.dials).toBe(3 * n);
    // 10 ms + 5 ms backoff + 10 ms + 10 ms backoff + 10 ms, exactly.
    expect(recorder.percentile(0)).toBe(45_000);
    expect(recorder.percentile(100)).toBe(45_000);
    // Every attempt reached the slow service, which kept working after the callers gave up.
    expect(details.services['slow']!.accepted).toBe(3 * n);
  });

  it('a user-side timeout completes the request at its deadline while the server keeps working', async () => {
    const { details, recorder } = await runModel({
      ...load(10, 1),
      topology: {
        entry: 'api',
        caller: 'users',
        clientGroups: { users: { timeout: '50ms' } },
        services: { api: { workers: 'inf', serviceTime: '200ms' } },
      },
    });
    expect(recorder.completions).toBe(10);
    expect(recorder.failures('timeout')).toBe(10);
    expect(recorder.percentile(0)).toBe(50_000);
    expect(recorder.percentile(100)).toBe(50_000);
    expect(details.services['api']!.accepted).toBe(10);
  });
});
