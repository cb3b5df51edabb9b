import { formatUs } from '../format.ts';
import { passesAboveFails } from '../capacity.ts';
import type { SearchSummary, StepOutcome } from '../qualification.ts';
import { INCIDENT } from './incidents.ts';
import { flag } from './flag.ts';
import type { RealismFlag } from './types.ts';

/*
 * Flags of a qualification's search: evidence that does not hold still (a pass above a fail), a
 * step whose failure sat in one interval, and deciding rates the search had no steps left to repeat.
 */

const rps = (x: number) => `${x} rps`;
const stepsOf = (numbers: readonly number[]) => `step${numbers.length === 1 ? '' : 's'} ${numbers.join(', ')}`;

export function searchFlags(steps: readonly StepOutcome[], search: SearchSummary): RealismFlag[] {
  return [...passAboveFail(steps, search), ...spoiledSteps(steps, search), ...unrepeated(search)];
}

/** A rate passed every repeat above a rate the target failed: the capacity is the lower one, but one of them measured noise. */
function passAboveFail(steps: readonly StepOutcome[], search: SearchSummary): RealismFlag[] {
  const pairs = passesAboveFails(steps);
  if (pairs.length === 0) return [];
  const stepsAt = (rate: number) => stepsOf(search.rates.find((r) => r.rps === rate)?.steps ?? []);
  const evidence = pairs.map((p) => `${rps(p.passRps)} passed (${stepsAt(p.passRps)}) above ${rps(p.failRps)}, which failed (${stepsAt(p.failRps)})`).join('; ');
  return [
    flag(
      'pass-above-fail',
      'warn',
      'a higher rate passed after a lower one failed',
      `${evidence}: the capacity is taken below the lower failure`,
      INCIDENT.noisySecond,
      'qualify again with longer steps (--step) or more --repeats on a quieter machine, and look for what stalls the target (GC, CPU throttling, a noisy neighbour)',
    ),
  ];
}

/** Each failing step whose failure sat in one interval: what its re-run showed. */
function spoiledSteps(steps: readonly StepOutcome[], search: SearchSummary): RealismFlag[] {
  return steps.flatMap((s, i) => {
    // A step the generator limited is re-run for that reason: the generator-bottleneck flag tells it.
    if (!s.spoiledBy || s.pass || s.generatorLimited || s.rerunOf !== undefined || s.interrupted) return [];
    const n = i + 1;
    const rerun = steps.findIndex((r) => r.rerunOf === n);
    const rate = search.rates.find((r) => r.rps === s.askedRps);
    const outcome =
      rerun < 0
        ? 'not re-run (the search ended first): it counts as the failure it is'
        : rate?.setAside?.includes(n)
          ? `re-run as step ${rerun + 1}, which passed: set aside`
          : `re-run as step ${rerun + 1}, which failed too: both count, the failure is the target's`;
    return [
      {
        ...flag(
          'spoiled-step',
          'warn',
          'a step’s failure sat in one interval',
          `step ${n} at ${rps(s.askedRps)}: spoiled by one interval at t=${formatUs(s.spoiledBy.tMs * 1000)} (${formatUs(s.spoiledBy.spanMs * 1000)}: ${s.spoiledBy.detail}); ${outcome}`,
          INCIDENT.noisySecond,
          'find what stalled the target for that second (its GC, CPU throttling, a co-located job): production traffic meets the same stall',
        ),
        scope: `step ${rps(s.askedRps)}`,
      },
    ];
  });
}

/** The deciding rates ran fewer than --repeats times: the search stopped (--max-steps, a signal) before repeating them. */
function unrepeated(search: SearchSummary): RealismFlag[] {
  const { passRps, failRps, failedBy } = search.bracket;
  const deciding = [passRps, failedBy === 'target' ? failRps : undefined].filter((r): r is number => r !== undefined);
  const short = deciding.map((r) => search.rates.find((j) => j.rps === r)!).filter((r) => r.steps.length < search.repeats);
  if (short.length === 0) return [];
  return [
    flag(
      'bracket-unrepeated',
      'warn',
      'a rate that decides the capacity was not repeated',
      `${short.map((r) => `${rps(r.rps)} ran ${r.steps.length}× of ${search.repeats}`).join('; ')}: ${search.stopped}`,
      INCIDENT.noisySecond,
      'raise --max-steps (or start nearer the capacity with --start) so the search can repeat its bracket',
    ),
  ];
}
