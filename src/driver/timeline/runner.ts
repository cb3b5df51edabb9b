import type { TimelineOutcome } from '../../recorder/driver-report.ts';
import type { Clock, ClockTimer } from '../clock.ts';
import { startExec, type RunningExec } from './exec.ts';
import type { TimelineStep } from './steps.ts';

/** What a transport lets the timeline change: which of its servers are in the client's ring. */
export interface RingControl {
  setInRing(server: number, inRing: boolean): void;
}

/**
 * Plays planned steps on the run's wall clock: one timer per pending step, started when the run's
 * clock starts. Each step records when it was applied; an exec runs in the background (the pacer
 * never waits for it) and is killed when the run ends before it does.
 */
export class TimelineRunner {
  private readonly actualMs: (number | null)[];
  private readonly timers: ClockTimer[] = [];
  private readonly execs = new Map<number, RunningExec>();

  constructor(
    private readonly steps: readonly TimelineStep[],
    private readonly clock: Clock,
    private readonly ring: RingControl | undefined,
    /** false in every worker thread but the first, so a command runs once per run. */
    private readonly runsExec = true,
  ) {
    this.actualMs = steps.map(() => null);
  }

  /** Arms every step; `nowMs` reads the run's clock (0 = the run's start). */
  start(nowMs: () => number): void {
    this.steps.forEach((_, i) => this.arm(i, nowMs));
  }

  /**
   * A timer can fire a fraction of a ms before the time asked (Node rounds): a step is never
   * applied before its planned time, so an early wake-up sleeps again for what is left.
   */
  private arm(i: number, nowMs: () => number): void {
    const leftMs = this.steps[i]!.plannedMs - nowMs();
    const fire = () => (nowMs() < this.steps[i]!.plannedMs ? this.arm(i, nowMs) : this.apply(i, nowMs));
    this.timers[i] = this.clock.after(leftMs <= 0 ? -1 : leftMs < 1 ? 0 : Math.ceil(leftMs), fire);
  }

  private apply(i: number, nowMs: () => number): void {
    const step = this.steps[i]!;
    const action = step.action;
    this.actualMs[i] = Math.round(nowMs() * 10) / 10;
    if (action.kind === 'ring') this.ring?.setInRing(action.server, action.inRing);
    else if (action.kind === 'exec' && this.runsExec) this.execs.set(i, startExec(action.argv, action.timeoutMs, nowMs));
  }

  /**
   * Cancels the steps not reached and returns every step's outcome once each command has ended: a
   * command still running is waited for (its timeout bounds the wait), or killed when the run was
   * interrupted.
   */
  async finish(interrupted: boolean): Promise<TimelineOutcome[]> {
    for (const t of this.timers) t.cancel();
    if (interrupted) for (const running of this.execs.values()) running.kill();
    const outcomes = this.steps.map((step, i): TimelineOutcome => {
      const actualMs = this.actualMs[i]!;
      return { index: step.index, type: step.type, label: step.label, plannedMs: step.plannedMs, actualMs, status: actualMs === null ? 'not reached' : 'applied' };
    });
    for (const [i, running] of this.execs) outcomes[i]!.exec = await running.done;
    return outcomes;
  }
}
