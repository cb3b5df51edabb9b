import type { RunAnalysis } from '../analysis/analyse-run.ts';
import { formatShare, formatUs, formatUsAgainst } from '../analysis/format.ts';
import type { Qualification, StepOutcome } from '../analysis/qualification.ts';
import type { RealismFlag } from '../analysis/realism/types.ts';
import type { EventRecovery } from '../analysis/recovery.ts';
import type { SloCheck } from '../analysis/slo.ts';
import type { RunResult } from '../recorder/result.ts';
import { type JunitCase, junitDocument } from './junit.ts';
import { markdownTable } from './table.ts';

/*
 * What a CI job reads of a run or a qualification: the JUnit XML of `--junit FILE` and the Markdown
 * block appended to $GITHUB_STEP_SUMMARY. Both come from one `CiOutcome`, so they agree with each
 * other and with the exit code.
 */

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
  /** Wall clock: when it started (ISO 8601) and how long it took, ms. */
  startedAt: string;
  elapsedMs: number;
  /** A qualification's steps, as run. */
  steps: CiStep[];
  /** A run's timeline events, each with how long the run took to recover from it. */
  recoveries: { label: string; detail: string }[];
}

/** One step of a qualification: its offered rate names it. */
export interface CiStep {
  rps: number;
  wallMs: number;
  interrupted: boolean;
  detail: string;
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
    startedAt: result.startedAt,
    elapsedMs: result.wall.elapsedMs,
    steps: [],
    recoveries: (analysis.timeline?.events ?? []).map((e) => ({ label: e.label, detail: recoveryText(e) })),
  };
}

function recoveryText(e: EventRecovery): string {
  if (e.recoveryMs === null) return `did not recover within the run (outside: ${e.breached.join(', ')})`;
  if (e.breached.length === 0) return 'stayed inside its limits';
  return `recovered in ${formatUs(e.recoveryMs * 1000)} (outside: ${e.breached.join(', ')})`;
}

function sloCheck(c: SloCheck): CiCheck {
  if (c.unmeasured) return { name: c.name, pass: false, detail: `not measured (${c.note})` };
  const measured = c.unit === 'us' ? formatUsAgainst(c.actual, c.limit) : formatShare(c.actual);
  const limit = c.unit === 'us' ? formatUsAgainst(c.limit, c.actual) : formatShare(c.limit);
  return { name: c.name, pass: c.pass, detail: `measured ${measured} ${c.pass ? '≤' : '>'} ${limit}${c.note ? ` (${c.note})` : ''}` };
}

/** `stepWallMs`: the wall time each step took, as the command timed it (qualification.json holds none: a model's stays reproducible). */
export function qualificationOutcome(q: Qualification, dir: string, stepWallMs: readonly number[] = []): CiOutcome {
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
    startedAt: q.startedAt,
    elapsedMs: q.wall.elapsedMs,
    steps: q.steps.map((s, i) => ciStep(s, stepWallMs[i] ?? 0)),
    recoveries: [],
  };
}

function ciStep(s: StepOutcome, wallMs: number): CiStep {
  const measured = `achieved ${Math.round(s.achievedRps)} rps, p99 ${formatUs(s.latencyUs.p99)}, errors ${formatShare(s.errorRate)}`;
  const judged = s.interrupted
    ? 'interrupted: not judged'
    : s.generatorLimited
      ? `limited by the generator (${(s.generatorReasons ?? []).join('; ')})`
      : s.pass
        ? 'the SLO held'
        : `the SLO broke (${s.failedChecks.join(', ')})`;
  return { rps: s.askedRps, wallMs, interrupted: s.interrupted === true, detail: `${s.purpose ? `${s.purpose}: ` : ''}${measured}: ${judged} (${s.dir})` };
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
 * JUnit XML (report/junit.ts): one suite per outcome, its key figures as properties. Test cases: the
 * verdict, each check, each step of a qualification (named by its offered rate), each timeline
 * event's recovery, each realism flag (named by its id and what it is about). A failed check, an
 * `invalid` flag and a verdict that fails the gate are failures; a step that broke the SLO is not
 * (finding where it breaks is the search), nor a slow recovery (the verdict does not judge it), nor a
 * `warn` or `info` flag (a skipped case would read as "not checked", and these were checked); an
 * interrupted step is skipped. Every case's evidence is in the suite's system-out, under its name.
 * Case names are unique, and the same from night to night for the same profile: CI systems key
 * their history on classname and name.
 */
export function junitXml(o: CiOutcome, hostname: string): string {
  const cases = uniqueNames(junitCases(o));
  const evidence = cases.flatMap((c) => [c.case.name, ...c.detail.split('\n').map((line) => `  ${line}`)]);
  return junitDocument([
    {
      name: `${o.name} ${o.kind}`,
      package: `stampede.${o.name}`,
      startedAt: o.startedAt,
      hostname,
      timeS: o.elapsedMs / 1000,
      properties: [['verdict', o.verdict], ...o.figures, ['reports', o.dir]],
      cases: cases.map((c) => c.case),
      systemOut: [...o.figures.map(([label, value]) => `${label}: ${value}`), '', ...evidence].join('\n'),
    },
  ]);
}

interface CaseWithDetail {
  case: JunitCase;
  detail: string;
}

function junitCases(o: CiOutcome): CaseWithDetail[] {
  const classname = (group?: string) => `stampede.${o.name}.${o.kind}${group ? `.${group}` : ''}`;
  const verdict: CaseWithDetail = {
    // A run's verdict case is the run; a qualification's time is in its steps.
    case: { classname: classname(), name: 'verdict', timeS: o.kind === 'run' ? o.elapsedMs / 1000 : 0 },
    detail: [o.verdict, ...o.reasons].join('\n'),
  };
  if (!passes(o.verdict)) verdict.case.failure = { message: `${o.verdict}: ${o.reasons.join('; ')}`, type: o.verdict, text: verdict.detail };
  return [
    verdict,
    ...o.checks.map((c) => ({
      case: { classname: classname('check'), name: c.name, timeS: 0, ...(!c.pass && { failure: { message: c.detail, type: 'check', text: c.detail } }) },
      detail: `${c.pass ? 'pass' : 'FAIL'}: ${c.detail}`,
    })),
    ...o.steps.map((s) => ({
      case: { classname: classname('step'), name: `step ${Math.round(s.rps)} rps`, timeS: s.wallMs / 1000, ...(s.interrupted && { skipped: 'interrupted: not judged' }) },
      detail: s.detail,
    })),
    ...o.recoveries.map((r) => ({ case: { classname: classname('recovery'), name: `recovery after ${r.label}`, timeS: 0 }, detail: r.detail })),
    ...o.flags.map((f) => {
      const detail = [`${f.severity}: ${f.title}`, f.evidence, `fix: ${f.fix}`, `incident: ${f.incident}`].join('\n');
      const failure = f.severity === 'invalid' && { failure: { message: `${f.title} (${f.evidence})`, type: 'invalid', text: detail } };
      return { case: { classname: classname('realism'), name: f.scope ? `${f.id}: ${f.scope}` : f.id, timeS: 0, ...failure }, detail };
    }),
  ];
}

/** The second and later cases of one classname and name get " #2", " #3", … in the order they came. */
function uniqueNames(cases: CaseWithDetail[]): CaseWithDetail[] {
  const seen = new Map<string, number>();
  return cases.map((c) => {
    const key = `${c.case.classname}\0${c.case.name}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n === 1 ? c : { ...c, case: { ...c.case, name: `${c.case.name} #${n}` } };
  });
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
