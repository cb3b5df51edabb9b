import type { HttpTarget } from '../../profile/protocols/http/spec.ts';
import { OpenLoopRun, openLoopOptions } from '../open-loop.ts';
import { primeOpenLoop } from '../prime.ts';
import type { DriverReport } from '../../recorder/driver-report.ts';
import type { Driver, DriverOptions, RunContext } from '../types.ts';
import { H1Transport } from './h1-transport.ts';
import { H2Transport } from './h2-transport.ts';
import { StatsPoller, TARGET_STAT_GAUGE } from './stats-poller.ts';
import { loadTlsMaterial } from './tls.ts';

/**
 * The `http://host:port` and `https://host:port` targets: open-loop HTTP/1.1 over a fixed pool of
 * keep-alive connections on raw node:net or node:tls sockets (tls.ts dials them). Why not undici or autocannon: both read and write through their own
 * request objects and promises/callbacks per request, and autocannon paces a closed loop (a
 * connection sends its next request when the previous answered), which hides a stalled target.
 * Here a request is a slot number and a string (or a buffer serialized once), written at its
 * intended time; the response parser only finds the status and where the response ends.
 * With `http.http2` the same pool carries HTTP/2 streams instead (h2-transport.ts); both share pool-transport.ts.
 */
export function createHttpDriver(target: HttpTarget, options: DriverOptions = {}): Driver {
  return {
    target: target.text,
    run: (context) => runHttp(context, target, intervalOf(context), options),
  };
}

async function runHttp(context: RunContext, target: HttpTarget, intervalUs: number, options: DriverOptions): Promise<DriverReport> {
  const { url } = target;
  const settings = context.profile.http;
  // Before any socket: a TLS file that cannot be read is bad input (exit 2), not a failed run.
  const tls = loadTlsMaterial(target, context.profile);
  const run = new OpenLoopRun(context, { ...openLoopOptions(target, settings, options), prime: () => primeOpenLoop(context) });
  const stats =
    settings.statsPath === undefined || options.pollTargetStats === false
      ? undefined
      : new StatsPoller(new URL(settings.statsPath, url), Math.max(100, intervalUs / 2000), tls?.options);
  const transport = settings.http2 ? new H2Transport(run, context.profile, target, tls, stats) : new H1Transport(run, context.profile, settings, target, tls, stats);
  stats?.start();
  const report = await run.execute(transport, context.signal);
  if (!stats) return report;
  return { ...report, gauges: [...report.gauges, TARGET_STAT_GAUGE], targetStats: ((await stats.stop()) ?? null) as Record<string, unknown> | null };
}

/** The recorder's interval when it is the RunRecorder (stats are polled twice per interval), else 1 s. */
function intervalOf(context: RunContext): number {
  const us = (context.recorder as { intervalUs?: unknown }).intervalUs;
  return typeof us === 'number' && us > 0 ? us : 1_000_000;
}
