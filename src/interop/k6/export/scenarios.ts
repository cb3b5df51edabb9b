import type { Profile } from '../../../profile/types.ts';
import type { ResolvedClient } from '../../../schedule/plan.ts';
import type { RateSegment } from '../../../schedule/types.ts';
import { k6Duration } from '../duration.ts';

/** A k6 arrival-rate scenario as the exporter writes it (a subset of @types/k6's Scenario). */
export type ArrivalScenario = {
  exec: string;
  startTime: string;
  gracefulStop: string;
  timeUnit: string;
  preAllocatedVUs: number;
  maxVUs: number;
  tags: Record<string, string>;
} & (
  | { executor: 'constant-arrival-rate'; rate: number; duration: string }
  | { executor: 'ramping-arrival-rate'; startRate: number; stages: { target: number; duration: string }[] }
);

/**
 * k6 rates are whole iterations per time unit, so a unit is chosen that makes every rate of the
 * curve whole (0.5 rps is 5 per 10s); past 1000s the rates are rounded (an error below 0.001 rps).
 */
const TIME_UNITS_S = [1, 10, 100, 1000] as const;

/** Each client group with traffic as one arrival-rate scenario, keyed by its k6 scenario name. */
export function scenariosOf(profile: Profile, clients: ResolvedClient[], execNames: string[]): Record<string, ArrivalScenario> {
  const scenarios: Record<string, ArrivalScenario> = {};
  const used = new Set<string>();
  clients.forEach((client, i) => {
    const scenario = scenarioOf(profile, client, execNames[i]!);
    if (scenario) scenarios[uniqueName(scenarioName(client.spec.name), used)] = scenario;
  });
  return scenarios;
}

function scenarioOf(profile: Profile, client: ResolvedClient, exec: string): ArrivalScenario | undefined {
  const segments = client.segments;
  const first = segments[0];
  const last = segments[segments.length - 1];
  if (!first || !last) return undefined;
  const peak = Math.max(...segments.map((s) => Math.max(s.fromRps, s.toRps)));
  if (peak === 0) return undefined;
  const unitS = timeUnitFor(segments);
  const perUnit = (rps: number) => Math.round(rps * unitS);
  const common = {
    exec,
    startTime: k6Duration(first.startUs),
    // Iterations started before the end may finish within the request timeout, as stampede's drain.
    gracefulStop: k6Duration(profile.http.timeout),
    timeUnit: `${unitS}s`,
    ...virtualUsers(profile, peak),
    tags: { client: client.spec.name },
  };
  if (isConstant(segments)) return { executor: 'constant-arrival-rate', rate: perUnit(first.fromRps), duration: k6Duration(last.endUs - first.startUs), ...common };
  return { executor: 'ramping-arrival-rate', startRate: perUnit(first.fromRps), stages: stagesOf(segments, perUnit), ...common };
}

/**
 * k6 stages ramp linearly from the previous target, as stampede's segments do (a client's segments
 * are contiguous); a step in the curve (one segment ending at a rate the next does not start at)
 * is a zero-length stage.
 */
function stagesOf(segments: RateSegment[], perUnit: (rps: number) => number): { target: number; duration: string }[] {
  const stages: { target: number; duration: string }[] = [];
  let rate = perUnit(segments[0]!.fromRps);
  for (const s of segments) {
    if (perUnit(s.fromRps) !== rate) stages.push({ target: perUnit(s.fromRps), duration: '0s' });
    stages.push({ target: perUnit(s.toRps), duration: k6Duration(s.endUs - s.startUs) });
    rate = perUnit(s.toRps);
  }
  return stages;
}

function isConstant(segments: RateSegment[]): boolean {
  const rate = segments[0]!.fromRps;
  return segments.every((s) => s.fromRps === rate && s.toRps === rate);
}

function timeUnitFor(segments: RateSegment[]): number {
  const rates = segments.flatMap((s) => [s.fromRps, s.toRps]);
  const whole = (x: number) => Math.abs(x - Math.round(x)) < 1e-9 * Math.max(1, x);
  return TIME_UNITS_S.find((unit) => rates.every((r) => whole(r * unit))) ?? 1000;
}

/**
 * VUs by Little's law: requests in flight = rate × time in flight. Pre-allocated for the peak at
 * twice the SLO's latency bound (1 s without one); the most is what a stall of the whole request
 * timeout would hold, capped by the profile's inFlightCap (stampede drops a send beyond it, k6
 * counts it in dropped_iterations).
 */
function virtualUsers(profile: Profile, peakRps: number): { preAllocatedVUs: number; maxVUs: number } {
  const boundUs = Math.max(0, ...profile.slo.latency.map((l) => l.max)) || 1e6;
  const preAllocatedVUs = Math.max(1, Math.ceil((peakRps * 2 * boundUs) / 1e6));
  const stalled = Math.ceil((peakRps * profile.http.timeout) / 1e6);
  return { preAllocatedVUs, maxVUs: Math.max(preAllocatedVUs, Math.min(profile.http.inFlightCap, stalled)) };
}

/** k6 scenario names allow letters, digits, _ and -. */
function scenarioName(client: string): string {
  return client.replace(/[^0-9A-Za-z_-]/g, '_');
}

export function uniqueName(name: string, used: Set<string>): string {
  let out = name;
  for (let n = 2; used.has(out); n++) out = `${name}_${n}`;
  used.add(out);
  return out;
}
