import type { GeneratorFigures, TransportReport } from '../recorder/driver-report.ts';
import { formatUs } from './format.ts';
import { GENERATOR_LIMITS } from './limits.ts';

/** Whether the generator, not the target, limited the run, and why — each reason with its figure and limit. */
export interface GeneratorJudgement {
  saturated: boolean;
  reasons: string[];
}

export function judgeGenerator(g: GeneratorFigures, transport?: TransportReport): GeneratorJudgement {
  const limits = GENERATOR_LIMITS;
  const reasons: string[] = [];
  if (g.eventLoopLagMs.p99 > limits.lagP99Ms) reasons.push(`event-loop lag p99 ${g.eventLoopLagMs.p99}ms > ${limits.lagP99Ms}ms`);
  if (g.cpu > limits.cpu) reasons.push(`generator CPU ${Math.round(g.cpu * 100)}% of a core > ${limits.cpu * 100}%`);
  if (g.dispatchLatenessUs.p99 > limits.dispatchLatenessP99Us) {
    reasons.push(`schedule slipped: dispatch lateness p99 ${formatUs(g.dispatchLatenessUs.p99)} > ${formatUs(limits.dispatchLatenessP99Us)}`);
  }
  if (g.dropped > 0) reasons.push(`${g.dropped} requests dropped at the in-flight cap (${g.inFlightCap})`);
  if (g.waitedForConnection > 0 && g.sendLatenessUs.p99 > limits.connectionWaitLatenessP99Us) {
    const slots = transport?.protocol === 'http' ? ` (connections × pipelining = ${transport.connections * transport.pipelining})` : '';
    reasons.push(
      `${g.waitedForConnection} requests waited for a free connection${slots}; send lateness p99 ${formatUs(g.sendLatenessUs.p99)} > ${formatUs(limits.connectionWaitLatenessP99Us)}`,
    );
  }
  return { saturated: reasons.length > 0, reasons };
}
