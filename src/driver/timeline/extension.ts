import type { TargetSpec } from '../../profile/protocols/registry.ts';
import type { ExtensionFactory } from '../run-extension.ts';
import { TimelineRunner } from './runner.ts';
import { planTimeline } from './steps.ts';

/** The profile's timeline planned for `target`, as an extension of the run: none when the profile has no events. */
export function timelineExtension(target: TargetSpec): ExtensionFactory {
  return ({ profile, schedule, clock, transport }) => {
    const events = profile.topology?.timeline ?? [];
    if (events.length === 0) return undefined;
    const steps = planTimeline({ events, target, clients: profile.clients.map((c) => c.name) });
    // Every thread and host changes its own client ring; a command runs once, from the first segment.
    const runner = new TimelineRunner(steps, clock, transport.ring, (schedule.segment?.index ?? 0) === 0);
    return {
      start: (nowMs) => runner.start(nowMs),
      finish: async (interrupted) => ({ timeline: await runner.finish(interrupted) }),
    };
  };
}
