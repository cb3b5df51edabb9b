import type { Profile } from '../profile/types.ts';
import { CalibrationInputError } from './errors.ts';
import type { RealQualification } from './real-qualification.ts';
import type { FittedParameters, MemcachedGetFigures, PauseFit, RealStep, ServiceCounters } from './types.ts';
import { warmKeysFor } from './warm-keys.ts';
import { decodeFromCompressedBase64, newHistogram } from '../recorder/histograms.ts';

/** Everything fitted from the real run alone; the residual delay needs a model run (see calibrate.ts). */
export type ServiceFit = Omit<FittedParameters, 'modelLowLoadP50Us' | 'networkUs' | 'networkDelayUs'>;

/** Steps whose CPU kept the service's core at most this busy are low load: queueing adds little there. */
const LOW_LOAD_UTILISATION = 0.25;
/** The low-load latency at each hundredth: the residual delay's distribution has this many equally likely values. */
const QUANTILES = 100;

/**
 * Fits the model's parameters to a real qualification of the reference service. The service is one
 * event loop: its CPU per request comes from the utilisation law (its process's CPU time ÷
 * requests, from its own counters; the event loop's busy time when it reports no CPU time, which
 * misses the kernel's share) and runs on one core; the work is per URI (a memcached get, on a miss a timer and a
 * set), so it is charged per key (itemTime) and a request's CPU varies as its batch does. The
 * memcached get takes what a low-rate run against memcached measured (else the topology's own
 * figure); the hit ratio is matched by a warm cache.
 * @throws CalibrationInputError when the steps carry no service counters.
 */
export function fitService(real: RealQualification, templateGetUs: number, memcached?: MemcachedGetFigures): ServiceFit {
  const counted = real.steps.filter((s): s is RealStep & { service: ServiceCounters } => s.service !== undefined && s.service.requests > 0);
  if (counted.length === 0)
    throw new CalibrationInputError(
      `the steps of ${real.dir} have no eventLoop.activeUs and lookup counters from the service`,
      'qualify `stampede serve reference` with http.statsPath: /stats (profiles/reference-calibration.yaml does)',
    );
  // Past capacity the service also spends time failing requests; the demand is read where it served them.
  const passing = counted.filter((s) => s.pass);
  const used = passing.length > 0 ? passing : counted;
  const sum = (f: (c: ServiceCounters) => number) => used.reduce((total, s) => total + f(s.service), 0);
  const requests = sum((c) => c.requests);
  const fromCpu = used.every((s) => s.service.cpuUs !== undefined);
  const demandUs = sum((c) => (fromCpu ? c.cpuUs! : c.eventLoopActiveUs)) / requests;
  const lookupsPerRequest = sum((c) => c.lookups) / requests;
  const hits = sum((c) => c.hits);
  const hitRatio = hits + sum((c) => c.misses) > 0 ? hits / (hits + sum((c) => c.misses)) : 0;
  const warmKeys = warmKeysFor(hitRatio, real.profile.keys.count, real.profile.keys.popularity);
  const pauses = pausesOf(
    used.map((s) => s.service),
    sum((c) => c.lookups),
  );
  return {
    demandUs,
    demandFrom: fromCpu ? 'process CPU time' : 'event-loop busy time',
    coreCapacityRps: 1e6 / demandUs,
    lookupsPerRequest,
    itemTimeUs: demandUs / Math.max(lookupsPerRequest, 1),
    cpus: 1,
    ...(pauses && { pauses }),
    inFlightAtKnee: inFlightAtKnee(real),
    hitRatio,
    ...(warmKeys !== undefined && { warmKeys }),
    memcached: memcached ? { getUs: memcached.p50Us, from: `p50 write-to-reply in ${memcached.dir}` } : { getUs: templateGetUs, from: 'the topology (no --memcached-run)' },
    settings: real.settings,
    ...callers(real.profile),
    lowLoad: lowLoadOf(real.steps, demandUs),
  };
}

/** GC pauses per item of work (URI) and their mean, by kind, over the steps used; none when a step did not report them. */
function pausesOf(counters: readonly ServiceCounters[], lookups: number): ServiceFit['pauses'] {
  if (lookups <= 0 || counters.some((c) => c.gc === undefined)) return undefined;
  const total = (f: (gc: NonNullable<ServiceCounters['gc']>) => number) => counters.reduce((n, c) => n + f(c.gc!), 0);
  const kind = (pauses: number, pauseUs: number): PauseFit => ({ perItem: pauses / lookups, meanUs: pauses > 0 ? pauseUs / pauses : 0 });
  return {
    minor: kind(
      total((g) => g.minorPauses),
      total((g) => g.minorPauseUs),
    ),
    major: kind(
      total((g) => g.majorPauses),
      total((g) => g.majorPauseUs),
    ),
  };
}

/**
 * The low-load steps' latencies added up (their histograms, exactly). One step alone is fragile:
 * the first also warms the service up (its JIT, its pool), and its p50 can be twice the next one's.
 */
function lowLoadOf(steps: readonly RealStep[], demandUs: number): ServiceFit['lowLoad'] {
  const low = steps.filter((s, i) => i === 0 || (s.askedRps * demandUs) / 1e6 <= LOW_LOAD_UTILISATION);
  const histograms = low.flatMap((s) => (s.latencyHistogram ? [decodeFromCompressedBase64(s.latencyHistogram)] : []));
  if (histograms.length === 0) {
    const first = steps[0]!;
    return { rps: first.askedRps, stepsRps: [first.askedRps], p50Us: first.latencyUs.p50, p99Us: first.latencyUs.p99, quantilesUs: [first.latencyUs.p50] };
  }
  const pooled = newHistogram();
  for (const h of histograms) pooled.add(h);
  return {
    rps: low[0]!.askedRps,
    stepsRps: low.map((s) => s.askedRps),
    p50Us: pooled.getValueAtPercentile(50),
    p99Us: pooled.getValueAtPercentile(99),
    quantilesUs: Array.from({ length: QUANTILES }, (_, i) => pooled.getValueAtPercentile(((i + 0.5) * 100) / QUANTILES)),
  };
}

function callers(profile: Profile): Pick<ServiceFit, 'callerConnections' | 'callerPipelining' | 'callerTimeoutUs'> {
  return { callerConnections: profile.http.connections, callerPipelining: profile.http.pipelining, callerTimeoutUs: profile.http.timeout };
}

/** Little's law at the knee (else the highest passing step): the requests the service held at once there. */
function inFlightAtKnee(real: RealQualification): ServiceFit['inFlightAtKnee'] {
  const kneeRps = real.qualification.knee?.rps;
  const step = real.steps.find((s) => s.askedRps === kneeRps) ?? [...real.steps].reverse().find((s) => s.pass) ?? real.steps[0]!;
  return { rps: step.askedRps, requests: (step.achievedRps * step.meanUs) / 1e6 };
}
