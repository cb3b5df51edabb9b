import junitReportBuilder from 'junit-report-builder';
import type { Builder } from 'junit-report-builder';
import type { RunAnalysis } from '../analysis/analyse-run.ts';
import { formatShare, formatUs, formatUsAgainst } from '../analysis/format.ts';
import type { Qualification } from '../analysis/qualification.ts';
import type { RealismFlag } from '../analysis/realism/types.ts';
import type { SloCheck } from '../analysis/slo.ts';
import type { RunResult } from '../recorder/result.ts';
import { markdownTable } from './table.ts';

/*
 * What a CI job reads of a run or a qualification: the JUnit XML of `--junit FILE` and the Markdown
 * block appended to $GITHUB_STEP_SUMMARY. Both come from one `CiOutcome`, so they agree with each
 * other and with the exit code.
 */

// The package's types declare an ES default export; Node hands an ES import its CommonJS module.exports, the builder itself.
const junit = junitReportBuilder as unknown as Builder;

/** One judged check: an SLO check of a run, or a capacity check of a qualification. */
export interface CiCheck {
  name: string;
  pass: boolean;
  /** What was measured against what, e.g. "61ms > 50ms" or "capacity 900 rps ≥ peak 800 rps". */
  detail: string;
}

export interface CiOutcome {
  kind: 'run' | 'qualification';
  name: string;
  verdict: string;
  reasons: string[];
  checks: CiCheck[];
  flags: RealismFlag[];
  /** Key figures, label → value, in reading order. */
  figures: [string, string][];
  dir: string;
}

/** A verdict that passes a CI gate: the same rule as the exit code (cli/exit-codes.ts). */
export function passes(verdict: string): boolean {
  return verdict === 'PASS' || verdict === 'NO SLO';
}

export function runOutcome(result: RunResult, analysis: RunAnalysis, dir: string): CiOutcome {
  const r = result.requests;
  const completed = r.ok + r.failed;
  return {
    kind: 'run',
    name: result.profile.name,
    verdict: analysis.verdict,
    reasons: analysis.reasons,
    checks: analysis.slo.checks.map(sloCheck),
    flags: analysis.flags,
    figures: [
      ['target', result.target],
      ['requests', `${r.sent} sent of ${r.expected} expected (${result.rate.achievedRps} of ${result.rate.askedRps} rps asked)`],
      ['latency p50 / p99 / p99.9', `${formatUs(result.latencyUs.p50)} / ${formatUs(result.latencyUs.p99)} / ${formatUs(result.latencyUs.p999)}`],
      ['error rate', formatShare(completed > 0 ? r.failed / completed : 0)],
      ['dropped', String(r.dropped)],
    ],
    dir,
  };
}

function sloCheck(c: SloCheck): CiCheck {
  if (c.unmeasured) return { name: c.name, pass: false, detail: `not measured (${c.note})` };
  const measured = c.unit === 'us' ? formatUsAgainst(c.actual, c.limit) : formatShare(c.actual);
  const limit = c.unit === 'us' ? formatUsAgainst(c.limit, c.actual) : formatShare(c.limit);
  return { name: c.name, pass: c.pass, detail: `measured ${measured} ${c.pass ? '≤' : '>'} ${limit}${c.note ? ` (${c.note})` : ''}` };
}

export function qualificationOutcome(q: Qualification, dir: string): CiOutcome {
  const rps = (x: number) => `${Math.round(x)} rps`;
  const checks: CiCheck[] = [
    {
      name: 'capacity covers the expected peak',
      pass: q.capacityRps > 0 && q.capacityRps >= q.expectedPeakRps,
      detail: `capacity ${rps(q.capacityRps)}${spreadText(q)} vs expected peak ${rps(q.expectedPeakRps)} (${q.peakSource})`,
    },
  ];
  if (q.failover) {
    checks.push({
      name: `failover (N+1, ${q.failover.dataCentres} DCs)`,
      pass: q.failover.pass,
      detail: `capacity ${rps(q.capacityRps)} vs failover demand ${rps(q.failover.demandRps)}`,
    });
  }
  return {
    kind: 'qualification',
    name: q.profile.name,
    verdict: q.verdict,
    reasons: q.reasons,
    checks,
    flags: q.flags,
    figures: [
      ['target', q.target],
      ['capacity', rps(q.capacityRps)],
      ...searchFigures(q),
      ['expected peak', rps(q.expectedPeakRps)],
      ['headroom', `${Math.round(q.headroom * 100)}%`],
      ...(q.failover ? [['failover headroom', `${Math.round(q.failover.headroom * 100)}%`] as [string, string]] : []),
      ['steps', String(q.steps.length)],
    ],
    dir,
  };
}

/** " (2 repeats: 2960–3110 rps)" when the deciding rates ran more than once. */
function spreadText(q: Qualification): string {
  return q.spread && q.spread.series > 1 ? ` (${q.spread.series} repeats: ${Math.round(q.spread.lowRps)}–${Math.round(q.spread.highRps)} rps)` : '';
}

/** The capacity's spread over its repeats, its bracket and why the search stopped (absent in files from before repeats). */
function searchFigures(q: Qualification): [string, string][] {
  if (!q.search) return [];
  const { bracket, stopped } = q.search;
  const figures: [string, string][] = [];
  if (q.spread)
    figures.push([
      'capacity spread',
      `${Math.round(q.spread.lowRps)}–${Math.round(q.spread.highRps)} rps over ${q.spread.series} repeat series (${Math.round(q.spread.share * 100)}%)`,
    ]);
  const pass = bracket.passRps !== undefined ? `${Math.round(bracket.passRps)} rps passes` : 'nothing passed';
  const fail = bracket.failRps !== undefined ? `, ${Math.round(bracket.failRps)} rps fails (${bracket.failedBy === 'generator' ? 'the generator' : 'the target'})` : '';
  figures.push(['bracket', `${pass}${fail}`], ['search stopped', stopped]);
  return figures;
}

/**
 * JUnit XML: one suite per outcome; the verdict (its reasons and key figures in its system-out), each check and each realism flag a test case. A
 * failed check, an `invalid` flag and a verdict that fails the gate are failures; `warn` and `info`
 * flags are passed test cases whose system-out holds the evidence and the fix (a skipped case would
 * read as "not checked", and these were checked). No timestamps: the same outcome, the same XML.
 */
export function junitXml(o: CiOutcome): string {
  const builder = junit.newBuilder().name('stampede');
  const suite = builder.testSuite().name(`${o.name} ${o.kind}`);
  const figures = o.figures.map(([label, value]) => `${label}: ${value}`);
  const verdict = suite
    .testCase()
    .className(`stampede.${o.kind}`)
    .name('verdict')
    .standardOutput([...o.reasons, '', ...figures].join('\n'));
  if (!passes(o.verdict)) verdict.failure(`${o.verdict}: ${o.reasons.join('; ')}`, o.verdict);
  for (const c of o.checks) {
    const test = suite.testCase().className(`stampede.${o.kind}.check`).name(c.name).standardOutput(c.detail);
    if (!c.pass) test.failure(c.detail, 'check');
  }
  for (const f of o.flags) {
    const test = suite
      .testCase()
      .className(`stampede.${o.kind}.realism`)
      .name(`${f.id}: ${f.title}`)
      .standardOutput(`${f.severity}: ${f.evidence}\nfix: ${f.fix}\nincident: ${f.incident}`);
    if (f.severity === 'invalid') test.failure(`${f.title} (${f.evidence})`, 'invalid');
  }
  return builder.build();
}

/** The Markdown block for $GITHUB_STEP_SUMMARY: verdict, reasons, key figures, checks and flags. */
export function stepSummary(o: CiOutcome): string {
  const lines = [`### stampede ${o.kind} ${o.name}: ${o.verdict}`, '', ...o.reasons.map((r) => `- ${r}`), '', markdownTable(['figure', 'value'], o.figures)];
  if (o.checks.length > 0)
    lines.push(
      '',
      markdownTable(
        ['', 'check', 'measured'],
        o.checks.map((c) => [c.pass ? 'pass' : '**FAIL**', c.name, c.detail]),
      ),
    );
  if (o.flags.length > 0) lines.push('', '**Realism flags**', '', ...o.flags.map((f) => `- ${f.severity}: ${f.title} (${f.evidence})`));
  lines.push('', `Reports: \`${o.dir}/\``, '');
  return lines.join('\n');
}
