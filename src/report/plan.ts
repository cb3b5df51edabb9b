import { formatUs } from '../analysis/format.ts';
import type { Profile } from '../profile/types.ts';
import type { Plan } from '../schedule/types.ts';
import { markdownTable } from './table.ts';
import { roundTo } from '../profile/units.ts';
import { clientExpectedDuringWarmup, expectedDuringWarmup } from '../recorder/result.ts';

/** What `stampede validate` prints: the resolved plan, so a user sees what a profile will do before running it. */
export function renderPlan(profile: Profile, plan: Plan): string {
  const phases = markdownTable(
    ['phase', 'from', 'to'],
    plan.phases.map((p) => [p.label, formatUs(p.startUs), formatUs(p.endUs)]),
  );
  const clients = markdownTable(
    ['client', 'instances', 'expected requests (measured)', 'peak rps'],
    plan.clients.map((c) => [
      c.name,
      String(c.instances),
      String(Math.round(c.expectedRequests - clientExpectedDuringWarmup(c, plan.warmupUs))),
      String(roundTo(Math.max(0, ...c.segments.flatMap((s) => [s.fromRps, s.toRps])), 2)),
    ]),
    ['l', 'r', 'r', 'r'],
  );
  const mix = markdownTable(
    ['kind', 'share'],
    plan.kinds.map((k, i) => [k, `${roundTo(plan.kindShares[i]! * 100, 2)}%`]),
    ['l', 'r'],
  );
  const popularity = profile.keys.popularity;
  const keyLaw =
    popularity.type === 'zipf'
      ? `zipf s=${popularity.s}`
      : popularity.type === 'hotspot'
        ? `hotspot ${popularity.trafficShare * 100}% of traffic on ${popularity.keyFraction * 100}% of keys`
        : 'uniform';
  // The same figure as the run's summary ("sent of N expected"): the measured window's, warm-up apart.
  const warmup = expectedDuringWarmup(plan);
  const expected = `${Math.round(plan.expectedRequests - warmup)} requests expected in the measured window${plan.warmupUs > 0 ? ` (+ ${Math.round(warmup)} during the warm-up)` : ''}`;
  const hot = plan.keyspace.hotKeys.length > 0 ? ` · hot keys: ${plan.keyspace.hotKeys.join(', ')}` : '';
  return [
    `# ${profile.name}: valid`,
    '',
    `seed ${plan.seed} · ${plan.arrivals} arrivals · warm-up ${formatUs(plan.warmupUs)} · measured ${formatUs(plan.durationUs)} · ${expected}`,
    `keys: ${plan.keyspace.count} (${keyLaw})${hot}`,
    '',
    phases,
    '',
    clients,
    '',
    mix,
    '',
  ].join('\n');
}
