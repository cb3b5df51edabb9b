import { emptyRequest, type Schedule, type ScheduledRequest } from '../schedule/types.ts';
import type { Clock, ClockTimer } from './clock.ts';
import type { SlotTable } from './slot-table.ts';

/** Due requests handled per wake-up before yielding to socket I/O, so responses are read while behind. */
export const MAX_DISPATCH_PER_WAKE = 2048;

/**
 * The pacing rule, pure (vegeta's Pacer.Pace is the model): a wake-up that began at `wakeUs` and
 * has dispatched `dispatched` requests dispatches the next one, due at `dueUs`, when it was due by
 * the wake-up's start and the wake-up has not used up its share.
 */
export function isDue(dueUs: number, wakeUs: number, dispatched: number): boolean {
  return dueUs <= wakeUs && dispatched < MAX_DISPATCH_PER_WAKE;
}

/**
 * How long the pacer sleeps before the request due at `dueUs`, read at `nowUs`: whole ms for
 * Clock.after, or −1 (after pending I/O) for a request already due. A timer fires no earlier than
 * asked, rounded up to whole ms, so it asks for the whole ms before the request is due.
 *
 * The pacer never polls: it sleeps on a timer (Node's granularity is 1 ms) and wakes up to ~1 ms
 * late, then sends everything due in one batch — one write per connection instead of one per
 * request, which is what lets one core keep up with wrk. Polling with setImmediate would shave the
 * slip but burn the core and turn every request into its own syscall. The slip is measured
 * (dispatchLatenessUs, sendLatenessUs) and is part of every latency, never hidden.
 */
export function sleepMs(dueUs: number, nowUs: number): number {
  const waitUs = dueUs - nowUs;
  return waitUs < 0 ? -1 : Math.floor(waitUs / 1000);
}

/** What the pacer hands its due requests to (the run). Called on every wake-up: must not allocate. */
export interface PacerSink {
  /** A wake-up begins at `nowUs`: requests dispatched until the next call may share a write. */
  beginBatch(nowUs: number): void;
  /**
   * `request` was due by `nowUs` (its wake-up's start) and holds `slot`, or −1 when every slot was
   * taken: it is dropped, never delayed into a later wake-up. `request` is valid only during the call.
   */
  dispatch(request: ScheduledRequest, slot: number, nowUs: number): void;
  /** Housekeeping every `tickMs`: interval closes, timeouts, reconnects. */
  housekeep(nowUs: number): void;
}

export interface PacerTiming {
  /** After the schedule ends, how long to wait for the requests in flight. */
  drainUs: number;
  /** Housekeeping period, ms. */
  tickMs: number;
}

/**
 * The pull loop over a Clock: one wake-up dispatches every request due (no timer per request),
 * each into a free slot of the table or dropped; then it sleeps until the next is due. The run ends
 * when the schedule is sent and every slot is free again, when the drain runs out, or on abort.
 */
export class Pacer {
  private t0Ms: number;
  private readonly pending = emptyRequest();
  private hasPending = false;
  private exhaustedAtUs = -1;
  private interrupted = false;
  private wake: ClockTimer | undefined;
  private finish: (() => void) | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly schedule: Schedule,
    private readonly slots: SlotTable,
    private readonly sink: PacerSink,
    private readonly timing: PacerTiming,
  ) {
    this.t0Ms = clock.nowMs();
  }

  /** The run's time 0 is `t0Ms` on the clock (default: when the pacer was made). */
  startsAt(t0Ms: number): void {
    this.t0Ms = t0Ms;
  }

  /** µs since the run's time 0 (integer). */
  nowUs(): number {
    return Math.floor((this.clock.nowMs() - this.t0Ms) * 1000);
  }

  /** Paces the schedule until the run ends; resolves to whether `signal` ended it. */
  async run(signal: AbortSignal): Promise<boolean> {
    const onAbort = () => {
      this.interrupted = true;
      this.finish?.();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const done = new Promise<void>((resolve) => (this.finish = resolve));
    this.pull();
    const housekeeping = this.clock.every(this.timing.tickMs, () => this.housekeep());
    if (signal.aborted) onAbort();
    else this.loop();
    await done;
    signal.removeEventListener('abort', onAbort);
    this.wake?.cancel();
    this.wake = undefined;
    housekeeping.cancel();
    return this.interrupted;
  }

  /** A slot was released: the last one after the schedule ended ends the run. */
  released(): void {
    if (this.exhaustedAtUs >= 0 && this.slots.idle) this.finish?.();
  }

  private pull(): void {
    this.hasPending = this.schedule.next(this.pending);
    if (this.hasPending) return;
    this.exhaustedAtUs = this.nowUs();
    if (this.slots.idle) this.finish?.();
  }

  /** One wake-up: dispatch every request that is due, then sleep until the next one. */
  private readonly loop = (): void => {
    this.wake = undefined;
    if (this.interrupted) return;
    const now = this.nowUs();
    const pending = this.pending;
    this.sink.beginBatch(now);
    for (let dispatched = 0; this.hasPending && isDue(pending.intendedAtUs, now, dispatched); dispatched++) {
      this.sink.dispatch(pending, this.slots.take(pending), now);
      this.pull();
    }
    if (this.hasPending) this.wake = this.clock.after(sleepMs(pending.intendedAtUs, this.nowUs()), this.loop);
  };

  private housekeep(): void {
    const now = this.nowUs();
    this.sink.housekeep(now);
    if (this.exhaustedAtUs >= 0 && now - this.exhaustedAtUs > this.timing.drainUs) this.finish?.();
  }
}
