import type { GeneratorLimits } from '../profile/schema.ts';
import { connectionPoolOf } from '../profile/protocols/registry.ts';
import type { TransportReport } from '../recorder/driver-report.ts';
import type { RunResult } from '../recorder/result.ts';
import { formatCount, formatUs } from './format.ts';
import { GENERATOR_LIMITS } from './limits.ts';

/**
 * The target saturated at the test's concurrency: requests waited for a free connection slot
 * (every connection × pipelining slot busy) long enough to matter, while the generator itself was
 * healthy. This is a fact about the target at this concurrency, not about the generator: the run
 * is judged on its SLO, whose latency — counted from the intended send time — already holds the wait.
 */
export interface TargetSaturation {
  /** Requests (warm-up included) that waited for a free connection slot before their write. */
  waitedForConnection: number;
  /** Connection slots the test had (connections × pipelining, summed over worker threads); absent when the transport does not say. */
  slots?: number;
  /** Successful answers per second while the measured window lasted (from its intervals). */
  answeredRps: number;
  asked: { rps: number };
  /** Mean requests on the wire at the target, by Little's law: completions on the wire per second × mean service time. */
  concurrency: number;
  /** Send lateness p99, µs: how long a request waited for its write (mostly for a slot). */
  sendLatenessP99Us: number;
  /** The finding in one line, with its figures. */
  text: string;
}

/**
 * Whether the target saturated at this concurrency: connection waits with send lateness p99 over
 * `generator.connectionWaitLatenessP99` (a short wait for a slot is ordinary queueing). Undefined
 * on the model, on runs without waits, and when the waits were short.
 */
export function judgeTargetSaturation(result: RunResult, limits: GeneratorLimits = GENERATOR_LIMITS): TargetSaturation | undefined {
  const g = result.generator;
  if (!g || g.waitedForConnection === 0 || g.sendLatenessUs.p99 <= limits.connectionWaitLatenessP99) return undefined;
  const answeredRps = answeredPerSecond(result);
  // Little's law on the wire: every completion that was written (ok or not) × its mean service time.
  const onTheWire = result.serviceTimeUs;
  const wiredRps = result.requests.ok > 0 ? answeredRps * (onTheWire.count / result.requests.ok) : 0;
  const concurrency = wiredRps * (onTheWire.mean / 1e6);
  const slots = connectionPool(result.driver.transport)?.slots;
  const busy = slots === undefined ? 'every connection slot busy' : `connections × pipelining = ${formatCount(slots)}, all busy`;
  const text =
    `the target saturated at this concurrency: ${formatCount(g.waitedForConnection)} requests waited for a free connection (${busy}; ` +
    `${formatCount(round1(concurrency))} on the wire on average by Little's law); it answered ${formatCount(Math.round(answeredRps))} rps of ${formatCount(result.rate.askedRps)} asked; ` +
    `send lateness p99 ${formatUs(g.sendLatenessUs.p99)}`;
  return {
    waitedForConnection: g.waitedForConnection,
    ...(slots !== undefined && { slots }),
    answeredRps: round1(answeredRps),
    asked: { rps: result.rate.askedRps },
    concurrency: round1(concurrency),
    sendLatenessP99Us: g.sendLatenessUs.p99,
    text,
  };
}

/**
 * Successful answers per second while the measured window lasted, from the intervals: the measured
 * requests' own count would add those answered in the drain after it, and overstate the rate of a
 * target that was far behind.
 */
function answeredPerSecond(result: RunResult): number {
  const { series, spanMs } = result.intervals;
  const fromMs = result.warmupMs;
  const toMs = result.warmupMs + result.durationMs;
  let ok = 0;
  let ms = 0;
  for (const point of series) {
    if (point.tMs < fromMs || point.tMs + spanMs > toMs) continue;
    ok += point.ok;
    ms += point.coveredMs ?? spanMs;
  }
  if (ms > 0) return (ok * 1000) / ms;
  return result.durationMs > 0 ? (result.requests.ok * 1000) / result.durationMs : 0;
}

/** The transport's pool, summed over its worker threads (each has its own): connections, and connections × pipelining; none without one. */
export function connectionPool(transport: TransportReport | undefined): { connections: number; slots: number } | undefined {
  return transport && connectionPoolOf(transport);
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
