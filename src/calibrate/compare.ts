import type { Knee } from '../analysis/qualification.ts';
import { formatUs } from '../analysis/format.ts';
import { KNEE_FACTOR } from '../analysis/limits.ts';
import type { CalibrationTargets, CalibrationVerdict, CurvePoint, KneeEstimate, KneeRow, LoadRow, Multiple, P99At } from './types.ts';

/** The targets of issue 11: the model's knee within 25% of the service's, its p99 at 0.8× capacity within 30%. */
export const CALIBRATION_TARGETS: CalibrationTargets = { knee: 0.25, p99At08: 0.3 };

/** A service whose capacity is under this share of what its event loop allows was starved of CPU. */
const STARVED = 0.5;

/** Capacities side by side: the service's, the calibrated model's, and what the fitted demand allows one event loop. */
export interface CapacityRow {
  realRps: number;
  modelRps: number;
  coreRps: number;
  /** The step where the service's memcached pool dialled the most connections per second, when it churned at all. */
  churn?: PoolChurn | undefined;
}

/** Connections a step's pool dialled: beyond its idle cap each is closed after use and dialled again. */
export interface PoolChurn {
  rps: number;
  opened: number;
  seconds: number;
  idleCap: number;
}

/** Dials per second above which a step's pool churned (a steady pool dials only to grow). */
const CHURNING_DIALS_PER_SECOND = 50;

/**
 * The step whose pool dialled the most connections per second, when that passes
 * CHURNING_DIALS_PER_SECOND. The service's counters cover the step's warm-up too (`warmupMs`).
 */
export function worstChurn(
  steps: readonly { askedRps: number; durationMs: number; service?: { connectionsOpened?: number } }[],
  idleCap: number,
  warmupMs: number,
): PoolChurn | undefined {
  let worst: PoolChurn | undefined;
  for (const step of steps) {
    const opened = step.service?.connectionsOpened;
    if (opened === undefined) continue;
    const seconds = (step.durationMs + warmupMs) / 1000;
    if (opened / seconds >= CHURNING_DIALS_PER_SECOND && (!worst || opened / seconds > worst.opened / worst.seconds)) worst = { rps: step.askedRps, opened, seconds, idleCap };
  }
  return worst;
}

/** Two rates closer than this share are the same step. */
const SAME_RATE = 0.005;

const logP99 = (p: CurvePoint) => Math.log(Math.max(p.p99Us, 1));

/**
 * The p99 at `rps` on a curve of steps: the step's own when one ran there; between two steps, read
 * off the line through their log p99s (latency grows about exponentially towards the knee);
 * outside the steps, the nearest one, marked as such.
 */
export function p99At(curve: readonly CurvePoint[], rps: number): P99At {
  const sorted = [...curve].sort((a, b) => a.rps - b.rps);
  const same = sorted.find((s) => Math.abs(s.rps / rps - 1) <= SAME_RATE);
  if (same) return { p99Us: same.p99Us, from: 'step', stepsRps: [same.rps] };
  const above = sorted.findIndex((s) => s.rps > rps);
  if (above <= 0) {
    const nearest = above === 0 ? sorted[0]! : sorted.at(-1)!;
    return { p99Us: nearest.p99Us, from: 'nearest step', stepsRps: [nearest.rps] };
  }
  const a = sorted[above - 1]!;
  const b = sorted[above]!;
  const t = (rps - a.rps) / (b.rps - a.rps);
  return { p99Us: Math.round(Math.exp(logP99(a) + t * (logP99(b) - logP99(a)))), from: 'interpolated', stepsRps: [a.rps, b.rps] };
}

/**
 * The knee of a curve as qualify defines it (p99 above KNEE_FACTOR × the lowest step's), but read
 * between the two steps around the turn on the log-p99 line, so two curves on the same steps can be
 * compared more finely than the search's growth factor. Undefined when p99 never turned.
 */
export function kneeOf(curve: readonly CurvePoint[]): KneeEstimate | undefined {
  const sorted = [...curve].sort((a, b) => a.rps - b.rps);
  const base = sorted[0];
  if (!base) return undefined;
  const limit = Math.log(KNEE_FACTOR * Math.max(base.p99Us, 1));
  const turned = sorted.findIndex((p) => logP99(p) > limit);
  if (turned <= 0) return undefined;
  const a = sorted[turned - 1]!;
  const b = sorted[turned]!;
  const t = (limit - logP99(a)) / (logP99(b) - logP99(a));
  return { rps: Math.round(a.rps + t * (b.rps - a.rps)), baseP99Us: base.p99Us, betweenRps: [a.rps, b.rps] };
}

export function kneeRow(real: readonly CurvePoint[], model: readonly CurvePoint[], qualified: { real?: Knee; model?: Knee }): KneeRow {
  const r = kneeOf(real);
  const m = kneeOf(model);
  return {
    ...(r && { real: r }),
    ...(m && { model: m }),
    ...(r && m && { difference: m.rps / r.rps - 1 }),
    ...(qualified.real && { realQualification: qualified.real }),
    ...(qualified.model && { modelQualification: qualified.model }),
  };
}

export function loadRow(multiple: Multiple, rps: number, real: readonly CurvePoint[], model: readonly CurvePoint[]): LoadRow {
  const r = p99At(real, rps);
  const m = p99At(model, rps);
  return { multiple, rps, real: r, model: m, difference: m.p99Us / Math.max(r.p99Us, 1) - 1 };
}

/**
 * Met when both curves turned, their knees within the knee target of each other, and the p99 at
 * 0.8× capacity within its target. Every row beyond the p99 target is named (the 0.5× and 1.0× rows
 * too: they are not targets, but where the model is off is what calibration is for).
 */
export function calibrationVerdict(knee: KneeRow, rows: readonly LoadRow[], capacity: CapacityRow, targets: CalibrationTargets = CALIBRATION_TARGETS): CalibrationVerdict {
  const disagreements: string[] = [];
  let met = true;
  if (capacity.realRps < STARVED * capacity.coreRps) disagreements.push(starvedCapacity(capacity));
  if (!knee.real || !knee.model) {
    met = false;
    const missing = !knee.real && !knee.model ? 'neither the service nor the model turned' : !knee.real ? 'the service did not turn' : 'the model did not turn';
    disagreements.push(`knee: ${missing} (p99 never passed ${KNEE_FACTOR}× the lowest step's over the steps run), so the knee target cannot be judged`);
  } else if (Math.abs(knee.difference!) > targets.knee) {
    met = false;
    disagreements.push(`knee: model ${knee.model.rps} rps vs service ${knee.real.rps} rps (${signed(knee.difference!)}, target ±${pct(targets.knee)})`);
  }
  for (const row of rows) {
    const isTarget = row.multiple === 0.8;
    if (Math.abs(row.difference) <= targets.p99At08) continue;
    if (isTarget) met = false;
    disagreements.push(
      `p99 at ${row.multiple.toFixed(1)}× capacity (${row.rps} rps): model ${formatUs(row.model.p99Us)} vs service ${formatUs(row.real.p99Us)} (${signed(row.difference)}${isTarget ? `, target ±${pct(targets.p99At08)}` : ', not a target'})`,
    );
  }
  return { met, disagreements };
}

export function signed(x: number): string {
  return `${x >= 0 ? '+' : '−'}${pct(Math.abs(x))}`;
}

export function pct(x: number): string {
  return `${Math.round(x * 100)}%`;
}

function starvedCapacity(capacity: CapacityRow): string {
  const saturated = `capacity: the service saturated at ${capacity.realRps} rps, under ${pct(STARVED)} of the ${Math.round(capacity.coreRps)} rps its CPU per request allows on one core`;
  const churn = capacity.churn;
  if (!churn) return `${saturated}: it did not have a core to itself (a busy machine?), or something other than CPU limited it, which the model does not have`;
  return `${saturated}: its memcached pool churned — at ${churn.rps} rps it dialled ${churn.opened} connections in ${churn.seconds} s (idle cap ${churn.idleCap}: a connection beyond it is closed after use and dialled again), a collapse the calibrated pool does not have (its dials cost no CPU); qualify the service with --pool-max-idle equal to --pool-max-open to calibrate without it`;
}
