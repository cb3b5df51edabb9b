import type { Profile } from '../profile/types.ts';
import { measuredDurationUs } from '../profile/phases.ts';

/*
 * How long the Job may live, from the run's own length: the Job is stopped if it runs past what
 * the run could take (activeDeadlineSeconds: a pod stuck for ever, a volume that never mounts), and
 * deleted with its pods some time after it finished (ttlSecondsAfterFinished), so a Job kept in
 * Git can be applied again the next night.
 */

/** Scheduling the pods and pulling the image, before the first one reaches the barrier. */
const POD_START_ALLOWANCE_S = 600;
/** Connecting, draining the requests still out after the schedule's end, writing the run folder: at least this, or a tenth of the run. */
const MIN_FINISH_ALLOWANCE_S = 300;
/** A finished Job is kept at least this long (its pods' logs), at most the other bound (so a nightly apply finds its name free). */
const MIN_KEEP_S = 3600;
const MAX_KEEP_S = 12 * 3600;

export interface JobLifetime {
  activeDeadlineSeconds: number;
  ttlSecondsAfterFinished: number;
}

export function jobLifetime(profile: Profile, barrier: { timeoutMs: number; leadMs: number }): JobLifetime {
  const runS = (profile.warmup + measuredDurationUs(profile)) / 1e6;
  const finishS = Math.max(MIN_FINISH_ALLOWANCE_S, runS / 10);
  const activeDeadlineSeconds = Math.ceil(POD_START_ALLOWANCE_S + (barrier.timeoutMs + barrier.leadMs) / 1000 + runS + finishS);
  return { activeDeadlineSeconds, ttlSecondsAfterFinished: Math.min(MAX_KEEP_S, Math.max(MIN_KEEP_S, activeDeadlineSeconds)) };
}
