import { MODEL_TARGET } from '../profile/protocols/model/spec.ts';
import { availableParallelism } from 'node:os';
import { checkPlan } from '../analysis/plan-check.ts';
import type { PlanFigures } from '../analysis/plan-refused.ts';
import { loadProfile } from '../profile/load.ts';
import { requireTopology } from '../profile/topology-required.ts';
import type { Plan } from '../schedule/types.ts';
import { createSchedule } from '../schedule/index.ts';
import { gridPoints, parseAxis, type Axis } from './grid.ts';
import { runJobs } from './pool.ts';
import { FAILED, RECOVERED, type PointResult } from './point.ts';

export interface SweepOptions {
  profilePath: string;
  /** `--vary` specs: one or two. */
  vary: string[];
  /** Fixed `--set` overrides applied to every point. */
  set: string[];
  steps: number;
  windowS: [number, number] | null;
  parallel?: number;
  onPoint?: (done: number, total: number, point: PointResult) => void;
  /** Stops the sweep (SIGINT, SIGTERM): the points done so far are kept and the result is marked partial. */
  signal?: AbortSignal;
  /** Run a grid over the profile's limits anyway. */
  force?: boolean | undefined;
}

export interface SweepResult {
  axes: Axis[];
  /** Row-major over the axes (the first axis varies slowest); a partial sweep holds only the points it finished. */
  points: { at: number[]; result: PointResult }[];
  /** Stopped before every point ran: the findings cover the points run, and a capacity stops at the first point missing. */
  partial: boolean;
  /** Points in the full grid. */
  gridPoints: number;
  /**
   * Per value of the second axis (one entry for a 1-D sweep): the largest first-axis value at and
   * below which every point recovered — the hidden capacity when the first axis is the load — or
   * null when even the smallest did not.
   */
  hiddenCapacity: { column: string | null; value: number | null }[];
  /** First-axis values (per column) where the system did not recover: the vulnerable region. */
  vulnerable: { column: string | null; values: string[] }[];
}

/** Runs the grid on the model, points in parallel on worker threads, and judges each one. */
export async function sweep(options: SweepOptions): Promise<SweepResult> {
  if (options.vary.length < 1 || options.vary.length > 2) throw new Error('sweep: give one or two --vary');
  const axes = options.vary.map((v) => parseAxis(v, options.steps));
  const grid = gridPoints(axes);
  await checkSweepPlan(options, axes, grid.length);
  let done = 0;
  const results = await runJobs(
    grid.map((at) => ({
      profilePath: options.profilePath,
      overrides: [...options.set, ...at.map((v, a) => `${axes[a]!.path}=${axes[a]!.values[v]}`)],
      windowS: options.windowS,
    })),
    options.parallel,
    (_, result) => options.onPoint?.(++done, grid.length, result),
    options.signal,
  );
  const points = grid.flatMap((at, i) => (results[i] ? [{ at, result: results[i] }] : []));
  return { axes, points, partial: points.length < grid.length, gridPoints: grid.length, ...analyse(axes, points) };
}

/**
 * The sweep's plan, refused before any point runs when over the profile's limits: the largest of
 * the grid's corner points (every axis at its first or last value) stands for every point.
 */
async function checkSweepPlan(options: SweepOptions, axes: Axis[], points: number): Promise<PlanFigures> {
  let corners: string[][] = [[]];
  for (const axis of axes) corners = corners.flatMap((c) => [...new Set([axis.values[0]!, axis.values.at(-1)!])].map((v) => [...c, `${axis.path}=${v}`]));
  const profiles = await Promise.all(corners.map((overrides) => loadProfile(options.profilePath, [...options.set, ...overrides])));
  // A sweep runs on the model: every point needs the topology.
  for (const profile of profiles) requireTopology(profile);
  const plans = profiles.map((p) => createSchedule(p).plan);
  const largest = plans.reduce((a: Plan, b: Plan) => (b.expectedRequests > a.expectedRequests ? b : a));
  const longestS = plans.reduce((most, p) => Math.max(most, p.totalUs / 1e6), 0);
  const concurrent = Math.min(points, options.parallel ?? availableParallelism());
  return checkPlan(profiles[plans.indexOf(largest)]!, largest, { runs: points, durationS: longestS * points, concurrent, target: MODEL_TARGET, force: options.force });
}

function analyse(axes: Axis[], points: SweepResult['points']): Pick<SweepResult, 'hiddenCapacity' | 'vulnerable'> {
  const first = axes[0]!;
  const columns = axes.length === 2 ? axes[1]!.values.map((_, i) => i) : [-1];
  const order = first.values.map((_, i) => i).sort((a, b) => first.numbers[a]! - first.numbers[b]!);
  const hiddenCapacity: SweepResult['hiddenCapacity'] = [];
  const vulnerable: SweepResult['vulnerable'] = [];
  for (const col of columns) {
    const at = (row: number) => points.find((p) => p.at[0] === row && (col < 0 || p.at[1] === col))?.result;
    let capacity: number | null = null;
    for (const row of order) {
      // A point not run (a partial sweep) proves nothing: the capacity is what the points run show.
      if (at(row)?.verdict !== 'recovered') break;
      capacity = first.numbers[row]!;
    }
    const column = col < 0 ? null : `${axes[1]!.path}=${axes[1]!.values[col]}`;
    hiddenCapacity.push({ column, value: capacity });
    vulnerable.push({ column, values: order.filter((row) => (at(row)?.verdict ?? 'recovered') !== 'recovered').map((row) => first.values[row]!) });
  }
  return { hiddenCapacity, vulnerable };
}

/** The sweep as text: one line per point (1-D) or a grid (2-D), then the findings. */
export function renderSweep(r: SweepResult): string {
  const lines: string[] = [];
  const mark = (p: PointResult) => `${p.verdict === 'recovered' ? 'recovered' : p.verdict === 'failed' ? 'FAILED   ' : 'degraded '} ${(p.success * 100).toFixed(1).padStart(5)}%`;
  const [first, second] = r.axes;
  if (r.partial) lines.push(`PARTIAL: interrupted after ${r.points.length} of ${r.gridPoints} points; the findings cover only the points run`);
  const w = r.points[0]?.result.window;
  if (w) lines.push(`success of requests started in ${w[0].toFixed(0)}–${w[1].toFixed(0)} s (recovered ≥ ${RECOVERED * 100}%, failed ≤ ${FAILED * 100}%)`);
  if (!second) {
    let longest = 0;
    for (const v of first!.values) longest = Math.max(longest, v.length);
    const width = Math.max(first!.path.length + 1 + longest, 10);
    for (const p of r.points)
      lines.push(
        `  ${`${first!.path}=${first!.values[p.at[0]!]}`.padEnd(width)}  ${mark(p.result)}   (before the trigger at ${p.result.triggerS.toFixed(0)} s: ${(p.result.before * 100).toFixed(1)}%)`,
      );
  } else {
    const head = `${first!.path} \\ ${second.path}`;
    const colW = 18;
    lines.push(`  ${head.padEnd(24)}${second.values.map((v) => v.padStart(colW)).join('')}`);
    first!.values.forEach((v, row) => {
      const cells = second.values.map((_, col) => {
        const p = r.points.find((x) => x.at[0] === row && x.at[1] === col)?.result;
        return (p ? mark(p).replace(/\s+/g, ' ') : 'not run').padStart(colW);
      });
      lines.push(`  ${v.padEnd(24)}${cells.join('')}`);
    });
  }
  lines.push('');
  r.hiddenCapacity.forEach((h, i) => {
    const where = h.column === null ? '' : ` at ${h.column}`;
    const vul = r.vulnerable[i]!.values;
    const none = r.partial ? 'no recovery among the points run' : 'did not recover even at the lowest value';
    lines.push(
      `${first!.path}${where}: ${h.value === null ? none : `recovers up to ${h.value} (hidden capacity)`}; vulnerable: ${vul.length === 0 ? 'none in range' : vul.join(', ')}`,
    );
  });
  return `${lines.join('\n')}\n`;
}
