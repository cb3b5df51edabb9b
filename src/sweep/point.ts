import { createModelDriver } from '../driver/model.ts';
import { loadProfile } from '../profile/load.ts';
import { redactOverride } from '../profile/redaction.ts';
import type { GaugeSource, Recorder } from '../recorder/types.ts';
import { createSchedule } from '../schedule/index.ts';
import type { Profile } from '../profile/types.ts';
import type { Plan } from '../schedule/types.ts';

/** What one grid point is asked to run. */
export interface PointJob {
  profilePath: string;
  overrides: string[];
  /** Judging window, seconds from the run start; null ends = the last quarter of the run. */
  windowS: [number, number] | null;
}

export type Verdict = 'recovered' | 'degraded' | 'failed';

export interface PointResult {
  /** As printed: a `--set` that wrote a secret is [redacted] (profile/redaction.ts). */
  overrides: string[];
  /** Success ratio of user requests intended in the judging window. */
  success: number;
  /** Success ratio of requests intended before the trigger (see `triggerS`). */
  before: number;
  /** Seconds from the run start to the trigger: the first timeline event or phase change; with neither, the judging window's start. */
  triggerS: number;
  verdict: Verdict;
  window: [number, number];
  requests: number;
  wallMs: number;
}

/** Success ≥ this in the window: recovered (model-notes §0). */
export const RECOVERED = 0.95;
/** Success ≤ this with the load back: stays failed. */
export const FAILED = 0.1;

/**
 * Counts requests by the second of their intended send time, and how many of them succeeded —
 * the success ratio of requests *started* in a window (model-notes §0), cheap enough for a sweep.
 */
class SecondsRecorder implements Recorder {
  readonly started: number[] = [];
  readonly ok: number[] = [];
  reason(): number {
    return 1;
  }
  sent(): void {}
  complete(intendedAtUs: number, _sentAtUs: number, _completedAtUs: number, _client: number, _kind: number, reason: number): void {
    const s = Math.floor(intendedAtUs / 1e6);
    while (this.started.length <= s) {
      this.started.push(0);
      this.ok.push(0);
    }
    this.started[s]!++;
    if (reason === 0) this.ok[s]!++;
  }
  dropped(): void {}
  advanceTo(): void {}
  setGaugeSource(_source: GaugeSource): void {}

  ratio(from: number, to: number): number {
    let started = 0;
    let ok = 0;
    for (let s = Math.max(0, Math.floor(from)); s < Math.min(this.started.length, Math.ceil(to)); s++) {
      started += this.started[s]!;
      ok += this.ok[s]!;
    }
    return started > 0 ? ok / started : 1;
  }
}

/** Runs one grid point on the model and judges whether the system recovered in the window; undefined when `signal` cut it short. */
export async function runPoint(job: PointJob, signal: AbortSignal = new AbortController().signal): Promise<PointResult | undefined> {
  const t0 = performance.now();
  const profile = await loadProfile(job.profilePath, job.overrides);
  const schedule = createSchedule(profile);
  const recorder = new SecondsRecorder();
  const report = await createModelDriver().run({ profile, schedule, recorder, signal });
  if (report.interrupted) return undefined;
  const totalS = schedule.plan.totalUs / 1e6;
  const window: [number, number] = job.windowS ?? [totalS * 0.75, totalS];
  const success = recorder.ratio(window[0], window[1]);
  const requests = recorder.started.reduce((a, b) => a + b, 0);
  const triggerS = triggerAtS(profile, schedule.plan, window[0]);
  return {
    overrides: job.overrides.map(redactOverride),
    success,
    before: recorder.ratio(0, triggerS),
    triggerS,
    verdict: success >= RECOVERED ? 'recovered' : success <= FAILED ? 'failed' : 'degraded',
    window,
    requests,
    wallMs: Math.round(performance.now() - t0),
  };
}

/**
 * When the trigger happens, in seconds from the run start: the earliest timeline event (a dip's
 * first start, a latency window's start, a flush, a shard change, an operator's set) or change of
 * phase after the first. A run with neither has no trigger to stand before: the judging window's
 * start stands in for it, so "before" is everything before the window.
 */
export function triggerAtS(profile: Profile, plan: Plan, windowStartS: number): number {
  const times = (profile.topology?.timeline ?? []).map((event) => (event.type === 'dip' ? event.start : event.at));
  if (plan.phases.length > 1) times.push(plan.phases[1]!.startUs);
  return times.length > 0 ? Math.min(...times) / 1e6 : windowStartS;
}
