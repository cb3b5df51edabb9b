import { describe, expect, it } from 'vitest';
import { DeadlineQueue } from '../../src/model/engine/deadline-queue.ts';
import { EventHeap } from '../../src/model/engine/event-heap.ts';
import { IntDeque } from '../../src/model/engine/int-deque.ts';
import { Simulation, type EventHandler } from '../../src/model/engine/simulation.ts';
import { RecordPool } from '../../src/model/core/records.ts';
import { Rng } from '../../src/schedule/rng.ts';

describe('EventHeap', () => {
  it('pops in time order, and events at the same time in insertion order', () => {
    // given many events on few distinct times, so ties are common
    const heap = new EventHeap(4);
    const rng = new Rng(7);
    const pushed: { time: number; order: number }[] = [];
    for (let i = 0; i < 5000; i++) {
      const time = Math.floor(rng.next() * 50);
      heap.push(time, 0, 0, i);
      pushed.push({ time, order: i });
    }
    // when
    const popped: { time: number; order: number }[] = [];
    while (heap.pop()) popped.push({ time: heap.topTime, order: heap.topArg });
    // then
    const expected = [...pushed].sort((a, b) => a.time - b.time || a.order - b.order);
    expect(popped).toEqual(expected);
    expect(heap.highWater).toBe(5000);
  });

  it('keeps order when pushes and pops interleave (hold model)', () => {
    const heap = new EventHeap(2);
    const rng = new Rng(3);
    for (let i = 0; i < 100; i++) heap.push(Math.floor(rng.next() * 1000), 0, 0, i);
    let now = 0;
    for (let i = 0; i < 10_000; i++) {
      heap.pop();
      expect(heap.topTime).toBeGreaterThanOrEqual(now);
      now = heap.topTime;
      heap.push(now + Math.floor(rng.next() * 1000), 0, 0, 0);
    }
    expect(heap.size).toBe(100);
  });
});

describe('Simulation', () => {
  it('refuses to schedule into the past or at a fractional time', () => {
    const sim = new Simulation();
    const h = sim.register({ handle: () => undefined });
    sim.at(10, h, 0, 0);
    sim.run(100, 10);
    expect(sim.nowUs).toBe(10);
    expect(() => sim.at(9, h, 0, 0)).toThrow(/never go back/);
    expect(() => sim.at(10.5, h, 0, 0)).toThrow(/integer/);
  });

  it('stops after the budget, at the horizon, or on stop()', () => {
    const sim = new Simulation();
    let seen = 0;
    const h = sim.register({ handle: () => void seen++ });
    for (let t = 0; t < 10; t++) sim.at(t, h, 0, 0);
    expect(sim.run(100, 3)).toBe('budget');
    expect(sim.run(5, 100)).toBe('idle');
    expect(seen).toBe(6);
    const stopper = sim.register({ handle: () => sim.stop() });
    sim.at(6, stopper, 0, 0);
    expect(sim.run(100, 100)).toBe('stopped');
    expect(sim.eventsProcessed).toBe(seen + 1);
  });

  it('hashes the processed events: the same events give the same trace hash', () => {
    const trace = (codes: number[]) => {
      const sim = new Simulation();
      const h = sim.register({ handle: () => undefined });
      codes.forEach((code, i) => sim.at(i * 7, h, code, 0));
      sim.run(Number.POSITIVE_INFINITY, 1e9);
      return sim.traceHash;
    };
    expect(trace([1, 2, 3])).toBe(trace([1, 2, 3]));
    expect(trace([1, 2, 3])).not.toBe(trace([1, 3, 2]));
  });
});

describe('DeadlineQueue', () => {
  /** Records expiries; entries with an odd id were "settled" (cancelled) before their deadline. */
  function setup(durationUs: number) {
    const sim = new Simulation();
    const expired: [number, number][] = [];
    const gens = new Map<number, number>();
    const queue = new DeadlineQueue(sim, durationUs, {
      isLive: (id, gen) => gens.get(id) === gen,
      expire: (id) => expired.push([id, sim.nowUs]),
    });
    const pusher = sim.register({
      handle: (_code, id) => {
        gens.set(id, 0);
        queue.push(id, 0);
      },
    } satisfies EventHandler);
    return { sim, queue, expired, gens, pusher };
  }

  it('expires entries in push order, each at push time + duration, with one heap event at a time', () => {
    const { sim, expired, pusher } = setup(100);
    for (let id = 0; id < 50; id++) sim.at(id * 3, pusher, 0, id);
    let maxPending = 0;
    while (sim.run(Number.POSITIVE_INFINITY, 1) !== 'idle') maxPending = Math.max(maxPending, sim.pendingEvents);
    expect(expired).toEqual(Array.from({ length: 50 }, (_, id) => [id, id * 3 + 100]));
    // 50 pushes queued as events + 1 armed deadline at most, never one timer per entry
    expect(sim.pendingHighWater).toBeLessThanOrEqual(51);
  });

  it('skips cancelled entries lazily and arms for the next live one', () => {
    const { sim, expired, gens, pusher } = setup(100);
    for (let id = 0; id < 20; id++) sim.at(id, pusher, 0, id);
    const canceller = sim.register({ handle: (_c, id) => gens.set(id, 1) });
    for (let id = 1; id < 20; id += 2) sim.at(50, canceller, 0, id);
    sim.run(Number.POSITIVE_INFINITY, 1e6);
    expect(expired.map(([id]) => id)).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
    expect(expired.every(([id, t]) => t === id + 100)).toBe(true);
  });

  it('lets an owner push new entries while expiring without delaying older ones', () => {
    const sim = new Simulation();
    const expired: [number, number][] = [];
    let next = 100;
    const queue: DeadlineQueue = new DeadlineQueue(sim, 10, {
      isLive: () => true,
      expire: (id) => {
        expired.push([id, sim.nowUs]);
        if (id < 100) queue.push(next++, 0); // an expiry that makes a new entry (a retry waiting again)
      },
    });
    const pusher = sim.register({ handle: (_c, id) => queue.push(id, 0) });
    sim.at(0, pusher, 0, 0);
    sim.at(5, pusher, 0, 1);
    sim.run(Number.POSITIVE_INFINITY, 1e6);
    expect(expired).toEqual([
      [0, 10],
      [1, 15],
      [100, 20],
      [101, 25],
    ]);
  });
});

describe('IntDeque and RecordPool', () => {
  it('IntDeque works as FIFO and LIFO across growth', () => {
    const q = new IntDeque(2);
    for (let i = 0; i < 10; i++) q.pushBack(i);
    expect(q.popFront()).toBe(0);
    expect(q.popBack()).toBe(9);
    for (let i = 10; i < 20; i++) q.pushBack(i);
    const rest: number[] = [];
    while (q.size > 0) rest.push(q.popFront());
    expect(rest).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    expect(() => q.popFront()).toThrow();
  });

  it('RecordPool reuses released records instead of allocating', () => {
    const pool = new RecordPool((id) => ({ id }));
    const a = pool.alloc();
    const b = pool.alloc();
    pool.release(a);
    expect(pool.alloc()).toBe(a);
    pool.release(b);
    expect(pool.alloc()).toBe(b);
    expect(pool.items).toHaveLength(2);
    expect(pool.highWater).toBe(2);
  });
});
