import { formatShare, formatUs } from '../analysis/format.ts';
import type { Qualification, SearchSummary, StepOutcome } from '../analysis/qualification.ts';
import { completeSteps } from '../analysis/capacity.ts';
import { capacityChart } from './charts.ts';
import { flagsMarkdown } from './flags.ts';
import { renderHtmlPage } from './html.ts';
import { markdownTable } from './table.ts';

const rps = (x: number) => String(Math.round(x));
const pct = (x: number) => `${x >= 0 ? '+' : ''}${Math.round(x * 100)}%`;

/** report.md of a qualification: verdict and reasons, capacity and headroom, flags, the per-step table. Pure. */
export function renderQualificationReport(q: Qualification): string {
  const capacityLine = q.capacityRps > 0 ? `**${rps(q.capacityRps)} rps**` : '**none**: no step held the SLO';
  const rows: string[][] = [
    ['capacity (every SLO check held)', capacityLine],
    ...searchRows(q),
    ['expected peak', `${rps(q.expectedPeakRps)} rps (${q.peakSource})`],
    ['headroom over peak', pct(q.headroom)],
  ];
  if (q.failover) {
    rows.push([
      'failover load (N+1)',
      `${rps(q.failover.demandRps)} rps: peak × ${q.failover.dataCentres}/${q.failover.dataCentres - 1} when one of ${q.failover.dataCentres} DCs fails`,
    ]);
    rows.push(['failover headroom', `${pct(q.failover.headroom)}: **${q.failover.pass ? 'PASS' : 'FAIL'}**`]);
  } else {
    rows.push(['failover headroom', 'not computed (no production.dataCentres ≥ 2)']);
  }
  rows.push([
    'knee (latency turns up)',
    q.knee ? `after ${rps(q.knee.rps)} rps (p99 ${formatUs(q.knee.p99Us)}; > 2× the lightest step's by ${rps(q.knee.turnedAtRps)} rps)` : 'not reached',
  ]);
  rows.push(['limit', q.limit ? `the ${q.limit.by} at ${rps(q.limit.rps)} rps: ${q.limit.detail}` : 'not reached']);
  const steps = markdownTable(
    ['step', 'asked rps', 'why', 'achieved rps', 'measured', 'p50', 'p99 [99% interval]', 'p99.9', 'errors', 'SLO', 'limit'],
    [...q.steps]
      .map((s, i) => ({ s, i }))
      .sort((a, b) => a.s.askedRps - b.s.askedRps)
      .map(({ s, i }) => [
        String(i + 1),
        rps(s.askedRps),
        purposeText(s),
        rps(s.achievedRps),
        formatUs(s.durationMs * 1000),
        formatUs(s.latencyUs.p50),
        s.p99IntervalUs ? `${formatUs(s.latencyUs.p99)} [${formatUs(s.p99IntervalUs.lowUs)}, ${formatUs(s.p99IntervalUs.highUs)}]` : formatUs(s.latencyUs.p99),
        formatUs(s.latencyUs.p999),
        formatShare(s.errorRate),
        s.interrupted ? 'interrupted: not judged' : s.pass ? 'pass' : `FAIL: ${s.failedChecks.join('; ')}${spoiledText(s, i + 1, q.search)}`,
        s.generatorLimited ? 'generator' : q.limit?.by === 'target' && q.limit.rps === s.askedRps ? 'target' : '',
      ]),
    ['r', 'r', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'l', 'l'],
  );
  return [
    `# ${q.profile.name} qualification: ${q.verdict}${q.interrupted ? ' (interrupted: partial results)' : ''}`,
    '',
    ...q.reasons.map((r) => `- ${r}`),
    '',
    q.profile.description.trim(),
    '',
    `target ${q.target} · seed ${q.seed} · ${q.steps.length} steps of ${formatUs(q.step.durationMs * 1000)} (longer at low rates, for enough samples) after ${formatUs(q.step.warmupMs * 1000)} warm-up each · every client scaled by the same factor, hot keys at their peak share · profile sha256 ${q.profile.sha256.slice(0, 12)}`,
    '',
    '## Capacity and headroom',
    '',
    markdownTable(['', ''], rows),
    '',
    '## Realism flags',
    '',
    flagsMarkdown(q.flags),
    '',
    '## Steps',
    '',
    steps,
    '',
    ...stepNotes(q.steps),
    'Each step is a run folder under `steps/` with its own result.json, latency.hlog and report.',
    '',
  ].join('\n');
}

/**
 * Why a step's limit was what it was, where the table has no room: the generator's own reasons for a
 * step it limited, and the target's saturation at the test's concurrency (docs/who-was-the-limit.md).
 */
function stepNotes(steps: readonly StepOutcome[]): string[] {
  const notes = steps.flatMap((s, i) => {
    const at = `step ${i + 1} (${rps(s.askedRps)} rps)`;
    if (s.generatorLimited) return [`- ${at}: the generator was the limit: ${s.generatorReasons?.join('; ') ?? `achieved ${rps(s.achievedRps)} rps`}`];
    return s.targetSaturation ? [`- ${at}: ${s.targetSaturation}`] : [];
  });
  return notes.length > 0 ? ['Who was the limit, step by step:', '', ...notes, ''] : [];
}

/**
 * The search's rows (files from before repeats have none): the capacity's spread over the repeat
 * series, the bracket that decides it with its steps, and why the search stopped.
 */
function searchRows(q: Qualification): string[][] {
  if (!q.search) return [];
  const rows: string[][] = [];
  if (q.spread) {
    const { series, lowRps, highRps, share } = q.spread;
    rows.push([
      'spread over repeats',
      series < 2 ? 'one series: no rate ran twice' : `${rps(lowRps)}–${rps(highRps)} rps over ${series} repeat series (${pct(share)}; the capacity is the lowest)`,
    ]);
  }
  rows.push(['bracket (decides the capacity)', bracketText(q.search)]);
  rows.push(['search stopped', q.search.stopped]);
  return rows;
}

function bracketText({ bracket, rates }: SearchSummary): string {
  const steps = (rate: number) => {
    const numbers = rates.find((r) => r.rps === rate)?.steps ?? [];
    return `step${numbers.length === 1 ? '' : 's'} ${numbers.join(', ')}`;
  };
  const pass = bracket.passRps !== undefined ? `passes ${rps(bracket.passRps)} rps (${steps(bracket.passRps)})` : 'no rate passed';
  if (bracket.failRps === undefined) return `${pass}; nothing failed`;
  return `${pass}; fails ${rps(bracket.failRps)} rps (${steps(bracket.failRps)}, ${bracket.failedBy === 'generator' ? 'the generator limited it' : 'by the target'})`;
}

/** Why the search ran the step. */
function purposeText(s: StepOutcome): string {
  if (s.purpose === undefined) return '';
  return s.rerunOf !== undefined ? `re-run of ${s.rerunOf}` : s.purpose;
}

/** A failing step spoiled by one interval: where, and what its re-run decided. */
function spoiledText(s: StepOutcome, n: number, search: SearchSummary | undefined): string {
  if (!s.spoiledBy) return '';
  const at = `; spoiled by one interval at t=${formatUs(s.spoiledBy.tMs * 1000)} (${s.spoiledBy.detail})`;
  if (s.rerunOf !== undefined) return `${at}; a re-run: counts`;
  const setAside = search?.rates.some((r) => r.setAside?.includes(n));
  return `${at}${setAside ? '; set aside: its re-run passed' : ''}`;
}

/** report.html of a qualification: the Markdown plus the capacity curve. */
export function renderQualificationHtml(q: Qualification, markdown: string): string {
  const chart = capacityChart({
    steps: completeSteps(q.steps),
    sloLatency: q.sloLatency,
    sloP99Us: q.sloP99Us,
    peakRps: q.expectedPeakRps,
    failoverRps: q.failover?.demandRps,
    capacityRps: q.capacityRps,
  });
  return renderHtmlPage({
    title: `${q.profile.name} qualification`,
    verdict: q.verdict,
    markdown,
    charts: [{ title: 'Capacity curve', option: chart, height: 380 }],
    chartsAfter: 'Realism flags',
  });
}

/** report.md and report.html of a qualification (written by run-folder's writeReports). Pure. */
export function renderQualificationReports(q: Qualification): { markdown: string; html: string } {
  const markdown = renderQualificationReport(q);
  return { markdown, html: renderQualificationHtml(q, markdown) };
}
