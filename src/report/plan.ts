import { formatCount, formatUs } from '../analysis/format.ts';
import type { PlanFigures, PlanRefusal } from '../analysis/plan-refused.ts';
import type { Profile } from '../profile/types.ts';
import type { Plan } from '../schedule/types.ts';
import { markdownTable } from './table.ts';
import { roundTo } from '../profile/units.ts';
import { clientExpectedDuringWarmup, expectedDuringWarmup } from '../recorder/result.ts';

/** The plan check's figures for `validate`: what the run will need, and which limit would refuse it. */
export interface PlanCheck {
  figures: PlanFigures;
  refusals: PlanRefusal[];
}

/** What `stampede validate` prints: the resolved plan, so a user sees what a profile will do before running it. */
export function renderPlan(profile: Profile, plan: Plan, check: PlanCheck): string {
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
  const keyLaw = keyLawText(profile);
  // The same figure as the run's summary ("sent of N expected"): the measured window's, warm-up apart.
  const warmup = expectedDuringWarmup(plan);
  const expected = `${Math.round(plan.expectedRequests - warmup)} requests expected in the measured window${plan.warmupUs > 0 ? ` (+ ${Math.round(warmup)} during the warm-up)` : ''}`;
  const hot = plan.keyspace.hotKeys.length > 0 ? ` · hot keys: ${plan.keyspace.hotKeys.join(', ')}` : '';
  return [
    `# ${profile.name}: ${check.refusals.length === 0 ? 'valid' : 'valid, but over its limits'}`,
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
    ...planCheckLines(profile, check),
    '',
  ].join('\n');
}

/** How keys are drawn: the popularity law, or a key file's weights. */
function keyLawText(profile: Profile): string {
  const { popularity, file, sample } = profile.keys;
  if (sample?.cumulative) return `weighted by ${file}`;
  const law =
    popularity.type === 'zipf'
      ? `zipf s=${popularity.s}`
      : popularity.type === 'hotspot'
        ? `hotspot ${popularity.trafficShare * 100}% of traffic on ${popularity.keyFraction * 100}% of keys`
        : 'uniform';
  return file === undefined ? law : `${law} over ${file} in file order`;
}

function planCheckLines(profile: Profile, { figures: f, refusals }: PlanCheck): string[] {
  const mb = (n: number) => `${n < 10 ? roundTo(n, 2) : formatCount(n)} MB`;
  const limits = profile.limits;
  const rows = [
    ['requests', formatCount(f.requests), formatCount(limits.maxRequests)],
    ['keys per request (upper bound)', formatCount(f.keysPerRequest), formatCount(limits.maxBatch)],
    ['intervals (1 s)', formatCount(f.intervals), formatCount(limits.maxIntervals)],
    ['duration, warm-up included', formatUs(f.durationS * 1e6), formatUs(limits.maxDurationS * 1e6)],
    ['estimated memory', mb(f.memoryMb), mb(limits.maxMemoryMb)],
    ['latency.hlog (estimated)', mb(f.files.latencyLogMb), ''],
    ['intervals.jsonl (estimated)', mb(f.files.intervalsMb), ''],
    ['result.json (estimated)', mb(f.files.resultMb), ''],
  ];
  const verdict =
    refusals.length === 0
      ? 'within every limit'
      : `run would refuse it: ${refusals.map((r) => r.text).join('; ')} — override with --force, or raise ${refusals.map((r) => `limits.${r.limit}`).join(', ')}`;
  return ['## Plan check', '', markdownTable(['figure', 'plan', 'limit'], rows, ['l', 'r', 'r']), '', verdict];
}
