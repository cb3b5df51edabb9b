import { parseK6Duration } from './duration.ts';

/*
 * A k6 script's options as lint reads them: plain data (JSON-cloned out of the script), every
 * field unknown until checked. k6's shortcuts (`vus`/`duration`, `stages`, `iterations`) are
 * turned into the scenario k6 itself would run for them.
 */

export type K6Options = Record<string, unknown>;

/** One scenario, with what lint needs of it resolved. */
export interface K6Scenario {
  name: string;
  executor: string;
  /** Set when the scenario is k6's reading of a shortcut option, e.g. "vus and duration". */
  shortcut?: string;
  startUs: number;
  config: Record<string, unknown>;
}

/** The executors whose VUs wait for each response before their next iteration (a closed loop); externally-controlled is VUs set from outside. */
export const CLOSED_LOOP_EXECUTORS: readonly string[] = ['constant-vus', 'ramping-vus', 'per-vu-iterations', 'shared-iterations', 'externally-controlled'];
export const ARRIVAL_RATE_EXECUTORS: readonly string[] = ['constant-arrival-rate', 'ramping-arrival-rate'];

export function k6Scenarios(options: K6Options): K6Scenario[] {
  const scenarios = record(options.scenarios);
  if (scenarios && Object.keys(scenarios).length > 0) {
    return Object.entries(scenarios).map(([name, value]) => {
      const config = record(value) ?? {};
      return { name, executor: String(config.executor ?? ''), startUs: parseK6Duration(config.startTime) ?? 0, config };
    });
  }
  const shortcut = (executor: string, described: string): K6Scenario[] => [{ name: 'default', executor, shortcut: described, startUs: 0, config: options }];
  if (Array.isArray(options.stages) && options.stages.length > 0) return shortcut('ramping-vus', 'stages');
  if (options.iterations !== undefined) return shortcut('shared-iterations', 'iterations');
  if (options.duration !== undefined) return shortcut('constant-vus', 'vus and duration');
  return shortcut('shared-iterations', 'no scenarios: one VU, one iteration');
}

interface RatePiece {
  startUs: number;
  endUs: number;
  fromRps: number;
  toRps: number;
}

/** An arrival-rate scenario's target rate as linear pieces on the test's time axis (µs); none for a closed-loop executor. */
export function arrivalRatePieces(s: K6Scenario): RatePiece[] {
  const unitUs = parseK6Duration(s.config.timeUnit ?? '1s') ?? 1e6;
  const perSecond = (n: unknown) => (Number(n) || 0) * (1e6 / unitUs);
  if (s.executor === 'constant-arrival-rate') {
    const rps = perSecond(s.config.rate);
    return [{ startUs: s.startUs, endUs: s.startUs + (parseK6Duration(s.config.duration) ?? 0), fromRps: rps, toRps: rps }];
  }
  if (s.executor !== 'ramping-arrival-rate') return [];
  const pieces: RatePiece[] = [];
  let at = s.startUs;
  let rate = perSecond(s.config.startRate);
  for (const stage of Array.isArray(s.config.stages) ? s.config.stages : []) {
    const st = record(stage) ?? {};
    const lengthUs = parseK6Duration(st.duration) ?? 0;
    const target = perSecond(st.target);
    if (lengthUs > 0) pieces.push({ startUs: at, endUs: at + lengthUs, fromRps: rate, toRps: target });
    at += lengthUs;
    rate = target;
  }
  return pieces;
}

/** The target arrival rate (iterations/s) of the scenarios at t µs: what k6 is asked to start. */
export function arrivalRateAt(scenarios: K6Scenario[], tUs: number): number {
  let sum = 0;
  for (const s of scenarios)
    for (const p of arrivalRatePieces(s)) if (tUs >= p.startUs && tUs < p.endUs) sum += p.fromRps + ((p.toRps - p.fromRps) * (tUs - p.startUs)) / (p.endUs - p.startUs);
  return sum;
}

/** The highest summed arrival rate of the scenarios (rates are linear in pieces, so it is at a piece's edge). */
export function peakArrivalRate(scenarios: K6Scenario[]): number {
  const edges = scenarios.flatMap((s) => arrivalRatePieces(s).flatMap((p) => [p.startUs, p.endUs - 1]));
  return Math.max(0, ...edges.map((t) => arrivalRateAt(scenarios, t)));
}

/** Iterations the arrival-rate scenarios are asked to start (∫ rate dt); undefined when a closed-loop scenario's count is unknown. */
export function expectedIterations(scenarios: K6Scenario[]): number | undefined {
  if (scenarios.some((s) => !ARRIVAL_RATE_EXECUTORS.includes(s.executor))) return undefined;
  return scenarios.reduce((sum, s) => sum + arrivalRatePieces(s).reduce((n, p) => n + ((p.fromRps + p.toRps) / 2) * ((p.endUs - p.startUs) / 1e6), 0), 0);
}

/** When the last scenario stops starting iterations, µs (undefined when a scenario's length is unknown). */
export function testLengthUs(scenarios: K6Scenario[]): number | undefined {
  let end = 0;
  for (const s of scenarios) {
    const length = scenarioLengthUs(s);
    if (length === undefined) return undefined;
    end = Math.max(end, s.startUs + length);
  }
  return end;
}

function scenarioLengthUs(s: K6Scenario): number | undefined {
  if (s.executor === 'ramping-vus' || s.executor === 'ramping-arrival-rate') {
    const stages = Array.isArray(s.config.stages) ? s.config.stages : [];
    return stages.reduce<number>((sum, st) => sum + (parseK6Duration(record(st)?.duration) ?? 0), 0);
  }
  if (s.executor === 'constant-vus' || s.executor === 'constant-arrival-rate') return parseK6Duration(s.config.duration);
  return undefined;
}

export function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
