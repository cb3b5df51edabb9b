import type { BreakdownResult } from '../recorder/breakdown.ts';
import { mergeTransportReports } from '../profile/protocols/registry.ts';
import type { DriverReport, GeneratorFigures } from '../recorder/driver-report.ts';
import type { EncodedBreakdown, RecorderPart } from '../recorder/merge.ts';
import type { RunResult } from '../recorder/result.ts';
import type { Plan } from '../schedule/types.ts';
import { SegmentMergeError } from './errors.ts';

/** A segment's totals as the recorder merges them (the same exact path as --workers' threads): counts, and every slice's encoded histogram. */
export function partOfResult(result: RunResult, plan: Plan): RecorderPart {
  const slice = (b: BreakdownResult | undefined, name: string): EncodedBreakdown => {
    if (!b) throw new SegmentMergeError(`a segment's result has no ${name} slice: it was not run from this profile`);
    return { ok: b.ok, failed: b.failed, latency: b.histogram };
  };
  const errors = Object.entries(result.errors);
  return {
    reasons: ['ok', ...errors.map(([name]) => name)],
    errorCounts: [0, ...errors.map(([, n]) => n)],
    sentCount: result.requests.sent,
    notSentCount: result.requests.notSent,
    droppedCount: result.requests.dropped,
    warmupSent: result.requests.warmup,
    lastCompletionUs: 0,
    ok: slice(result.byOutcome.ok, 'ok'),
    failed: slice(result.byOutcome.failed, 'failed'),
    byKind: plan.kinds.map((kind) => slice(result.byKind[kind], `kind ${kind}`)),
    byClient: plan.clients.map((client) => slice(result.byClient[client.name], `client ${client.name}`)),
    serviceTime: result.histograms.serviceTime,
  };
}

/**
 * The segments' driver reports as one. Each segment had its own generator (its own host): the
 * merged generator is judged by the worst one — if any segment's generator was the limit, the
 * merged run's was too — with the counts summed. The model's own account is per segment (each
 * simulated the system at its share of the load), so the merge keeps none.
 */
export function mergedDriverReport(results: readonly RunResult[]): DriverReport {
  const generators = results.flatMap((r) => (r.generator ? [r.generator] : []));
  const transports = results.flatMap((r) => (r.driver.transport ? [r.driver.transport] : []));
  const first = results[0]!;
  return {
    elapsedUs: Math.max(...results.map((r) => r.wall.elapsedMs * 1000)),
    interrupted: results.some((r) => r.interrupted),
    loop: results.some((r) => r.driver.loop === 'closed') ? 'closed' : 'open',
    gauges: [...new Map(results.flatMap((r) => Object.values(r.gauges)).map((g) => [g.name, g])).values()],
    ...(generators.length > 0 && { generator: worstGenerator(generators) }),
    ...(transports.length > 0 && { transport: mergeTransportReports(transports) }),
    ...(first.driver.targetStats !== undefined && { targetStats: first.driver.targetStats }),
    ...timelineOf(first),
  };
}

/**
 * The timeline as the first segment played it: every segment changes its own client's ring at the
 * same planned times, and a command runs from the first segment only. The multiplier windows are
 * the schedule's; buildResult adds them again.
 */
function timelineOf(result: RunResult): Pick<DriverReport, 'timeline'> {
  const steps = (result.timeline ?? []).filter((s) => s.type !== 'multiplier');
  return steps.length > 0 ? { timeline: steps } : {};
}

function worstGenerator(all: readonly GeneratorFigures[]): GeneratorFigures {
  const max = (of: (g: GeneratorFigures) => number) => Math.max(...all.map(of));
  const sum = (of: (g: GeneratorFigures) => number) => all.reduce((a, g) => a + of(g), 0);
  const worst = (of: (g: GeneratorFigures) => GeneratorFigures['sendLatenessUs']) => ({
    mean: max((g) => of(g).mean),
    p50: max((g) => of(g).p50),
    p99: max((g) => of(g).p99),
    max: max((g) => of(g).max),
  });
  return {
    eventLoopLagMs: { mean: max((g) => g.eventLoopLagMs.mean), p99: max((g) => g.eventLoopLagMs.p99), max: max((g) => g.eventLoopLagMs.max) },
    cpu: max((g) => g.cpu),
    cpuPeak: max((g) => g.cpuPeak),
    sendLatenessUs: worst((g) => g.sendLatenessUs),
    dispatchLatenessUs: worst((g) => g.dispatchLatenessUs),
    dropped: sum((g) => g.dropped),
    inFlightCap: sum((g) => g.inFlightCap),
    waitedForConnection: sum((g) => g.waitedForConnection),
    threads: sum((g) => g.threads),
  };
}
