import { describe, expect, it } from 'vitest';
import { isDue, MAX_DISPATCH_PER_WAKE, Pacer, sleepMs, type PacerSink } from '../../src/driver/pacer.ts';
import { SlotTable } from '../../src/driver/slot-table.ts';
import { VirtualClock } from '../../src/driver/virtual-clock.ts';
import { createSchedule } from '../../src/schedule/index.ts';
import type { Schedule, ScheduledRequest } from '../../src/schedule/types.ts';
import { makeProfile } from '../helpers/profile.ts';

/*
 * The pacer alone, as vegeta tests its Pacer: the rule as pure functions, then the pull loop in
 * virtual time over a slot table, with a sink that answers each request after a scripted time.
 * No recorder, no transport, no real timer: every figure is exact.
 */

describe('the pacing rule', () => {
  it.each([
    { dueUs: 1000, wakeUs: 1000, dispatched: 0, due: true },
    { dueUs: 1001, wakeUs: 1000, dispatched: 0, due: false },
    { dueUs: 0, wakeUs: 1000, dispatched: MAX_DISPATCH_PER_WAKE - 1, due: true },
    { dueUs: 0, wakeUs: 1000, dispatched: MAX_DISPATCH_PER_WAKE, due: false },
  ])('due at $dueUs µs, woken at $wakeUs µs, $dispatched dispatched: due now $due', ({ dueUs, wakeUs, dispatched, due }) => {
    expect(isDue(dueUs, wakeUs, dispatched)).toBe(due);
  });

  it.each([
    { dueUs: 5000, nowUs: 2000, ms: 3 },
    { dueUs: 3000, nowUs: 2000, ms: 1 },
    { dueUs: 2999, nowUs: 2000, ms: 0 },
    { dueUs: 2000, nowUs: 2000, ms: 0 },
    { dueUs: 1999, nowUs: 2000, ms: -1 },
  ])('due at $dueUs µs, read at $nowUs µs: sleep $ms ms', ({ dueUs, nowUs, ms }) => {
    expect(sleepMs(dueUs, nowUs)).toBe(ms);
  });
});

const plan = createSchedule(makeProfile({ name: 'pacer', warmup: '0s', phases: [{ type: 'steady', rate: 1000, duration: '1s' }] })).plan;

/** A schedule of requests at the given intended times (ms), seq in order. */
function listSchedule(timesMs: readonly number[]): Schedule {
  let seq = 0;
  return {
    plan,
    next(into: ScheduledRequest): boolean {
      if (seq >= timesMs.length) return false;
      into.seq = seq;
      into.intendedAtUs = timesMs[seq++]! * 1000;
      return true;
    },
  };
}

interface Row {
  name: string;
  timesMs: number[];
  /** In-flight slots (default 100). */
  cap?: number;
  /** From dispatch to the answer that frees the slot; undefined: never answered. */
  responseMs: (seq: number) => number | undefined;
  /** By seq: the thread is busy this long dispatching it (a stalled event loop). */
  stallMs?: Record<number, number>;
  drainMs?: number;
  abortAtMs?: number;
  sent: number[];
  dropped: number[];
  /** Dispatch lateness of every request, sent or dropped, in dispatch order. */
  lateUs: number[];
  endMs: number;
  interrupted?: boolean;
}

/** Records what the pacer dispatched and answers it on the virtual clock. */
class ScriptedSink implements PacerSink {
  readonly sent: number[] = [];
  readonly dropped: number[] = [];
  readonly lateUs: number[] = [];
  pacer!: Pacer;

  constructor(
    private readonly clock: VirtualClock,
    private readonly slots: SlotTable,
    private readonly row: Row,
  ) {}

  beginBatch(): void {}
  housekeep(): void {}

  dispatch(request: ScheduledRequest, slot: number, nowUs: number): void {
    this.lateUs.push(nowUs - request.intendedAtUs);
    if (slot < 0) {
      this.dropped.push(request.seq);
      return;
    }
    this.sent.push(request.seq);
    this.clock.stall(this.row.stallMs?.[request.seq] ?? 0);
    const responseMs = this.row.responseMs(request.seq);
    if (responseMs === undefined) return;
    this.clock.after(responseMs, () => {
      this.slots.release(slot);
      this.pacer.released();
    });
  }
}

const ms = (count: number, fromMs = 0): number[] => Array.from({ length: count }, (_, i) => fromMs + i);
const burst = MAX_DISPATCH_PER_WAKE + 1;

describe('the pacer on a virtual clock', () => {
  it.each<Row>([
    { name: 'on time', timesMs: [0, 1, 2], responseMs: () => 1, sent: [0, 1, 2], dropped: [], lateUs: [0, 0, 0], endMs: 3 },
    // Woken at 2 ms for a request due at 2.5 ms, it sleeps again: Node's timers are whole ms, at least 1.
    { name: 'a request between two ms', timesMs: [0, 2.5], responseMs: () => 1, sent: [0, 1], dropped: [], lateUs: [0, 500], endMs: 4 },
    // Busy 3 ms dispatching seq 0: seq 1..3 fell due meanwhile and leave together once pending I/O is handled.
    { name: 'a stalled thread', timesMs: [0, 1, 2, 3], responseMs: () => 1, stallMs: { 0: 3 }, sent: [0, 1, 2, 3], dropped: [], lateUs: [0, 2000, 1000, 0], endMs: 4 },
    { name: 'a burst over the in-flight cap', timesMs: [0, 0, 0, 0, 5], cap: 2, responseMs: () => 10, sent: [0, 1], dropped: [2, 3, 4], lateUs: [0, 0, 0, 0, 0], endMs: 10 },
    // An answer due when the next request is takes its slot back first: it was asked for first.
    { name: 'a slot freed just in time', timesMs: [0, 1, 2], cap: 1, responseMs: () => 1, sent: [0, 1, 2], dropped: [], lateUs: [0, 0, 0], endMs: 3 },
    { name: 'a slot freed a ms late', timesMs: [0, 1, 2], cap: 1, responseMs: () => 2, sent: [0, 2], dropped: [1], lateUs: [0, 0, 0], endMs: 4 },
    { name: 'answered within the drain', timesMs: [0], drainMs: 20, responseMs: () => 12, sent: [0], dropped: [], lateUs: [0], endMs: 12 },
    // The drain is checked on the 5 ms housekeeping tick: the first past 20 ms ends the run.
    { name: 'never answered: the drain runs out', timesMs: [0], drainMs: 20, responseMs: () => undefined, sent: [0], dropped: [], lateUs: [0], endMs: 25 },
    { name: 'an empty schedule', timesMs: [], responseMs: () => 1, sent: [], dropped: [], lateUs: [], endMs: 0 },
    { name: 'aborted', timesMs: ms(10), abortAtMs: 2.5, responseMs: () => 1, sent: [0, 1, 2], dropped: [], lateUs: [0, 0, 0], endMs: 2.5, interrupted: true },
    { name: 'aborted before the start', timesMs: ms(10), abortAtMs: 0, responseMs: () => 1, sent: [], dropped: [], lateUs: [], endMs: 0, interrupted: true },
    // One wake-up dispatches its share, then yields to I/O; the rest goes at the next wake-up.
    {
      name: 'more due at once than one wake-up’s share',
      timesMs: Array(burst).fill(0),
      cap: burst,
      responseMs: () => 1,
      sent: ms(burst),
      dropped: [],
      lateUs: [...Array(MAX_DISPATCH_PER_WAKE).fill(0), 1000],
      endMs: 2,
    },
  ])('$name', async (row) => {
    const clock = new VirtualClock();
    const slots = new SlotTable(row.cap ?? 100);
    const sink = new ScriptedSink(clock, slots, row);
    const pacer = new Pacer(clock, listSchedule(row.timesMs), slots, sink, { drainUs: (row.drainMs ?? 1000) * 1000, tickMs: 5 });
    sink.pacer = pacer;
    const abort = new AbortController();
    if (row.abortAtMs === 0) abort.abort();
    else if (row.abortAtMs !== undefined) clock.after(row.abortAtMs, () => abort.abort());
    const interrupted = await clock.runUntil(pacer.run(abort.signal));
    expect({ sent: sink.sent, dropped: sink.dropped, lateUs: sink.lateUs, endMs: clock.nowMs(), interrupted }).toEqual({
      sent: row.sent,
      dropped: row.dropped,
      lateUs: row.lateUs,
      endMs: row.endMs,
      interrupted: row.interrupted ?? false,
    });
  });
});
