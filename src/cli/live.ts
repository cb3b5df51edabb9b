import { isIP } from 'node:net';
import { formatUs } from '../analysis/format.ts';
import { RunStartError } from '../driver/errors.ts';
import type { RunMetrics } from '../metrics/exporter.ts';
import type { MetricsServer } from '../metrics/server.ts';
import type { LiveInterval, LiveObserver } from '../pipeline/live.ts';
import type { Lingering } from './command.ts';
import { commandLineError, durationOption } from './input.ts';
import { Eta, Progress, intervalStatus, progressMode } from './progress.ts';

/*
 * What a run shows while it lasts: the progress line on stderr and, with --metrics-port, the
 * Prometheus endpoint. Both are fed by the pipeline's per-interval snapshot; the metrics server
 * stays up after the run for --metrics-linger (its final figures scraped), then stops.
 */

export interface LiveArgs {
  quiet?: boolean | undefined;
  progress?: boolean | undefined;
  metricsPort?: number | undefined;
  metricsHost?: string | undefined;
  metricsLinger?: string | undefined;
}

/** Longest --metrics-linger: a scrape interval is seconds to a minute; an hour is a typo. */
const MAX_LINGER_US = 3600e6;

export interface LiveView {
  readonly progress: Progress;
  /**
   * Pass to the run as `onInterval`; `prefix` labels the line (a qualification's step). Undefined
   * when nothing is shown (--quiet, or no terminal, and no metrics): no snapshot is built on the
   * sending thread for nobody.
   */
  observer(prefix?: () => string): LiveObserver | undefined;
  /**
   * The command's end, its result written: with metrics and a linger, the endpoint stays up with the
   * final figures and main.ts waits on it (Lingering); otherwise it closes and the code is returned.
   */
  finish(exitCode: number): Promise<number | Lingering>;
  /** Ends the progress line and closes the endpoint, unless finish handed it to a linger. */
  close(): Promise<void>;
}

export async function startLiveView(args: LiveArgs): Promise<LiveView> {
  const progress = new Progress(process.stderr, progressMode(args, process.stderr.isTTY === true));
  const lingerUs = lingerOption(args.metricsLinger);
  const metrics = args.metricsPort === undefined ? undefined : await startMetrics(args.metricsHost ?? '127.0.0.1', args.metricsPort);
  const say = args.quiet === true ? undefined : (text: string) => progress.line(text);
  if (metrics) say?.(`metrics: ${metrics.server.url}`);
  let lingering = false;
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      progress.end();
      if (!lingering) await metrics?.server.close();
    })());
  const eta = new Eta();
  return {
    progress,
    observer: (prefix) =>
      progress.mode === 'off' && metrics === undefined
        ? undefined
        : (live: LiveInterval) => {
            metrics?.exporter.update(live);
            if (progress.mode === 'off') return;
            const etaMs = eta.remainingMs(live.elapsedUs, live.plannedUs);
            progress.status(() => (prefix ? `${prefix()} · ${intervalStatus(live, etaMs)}` : intervalStatus(live, etaMs)));
          },
    finish: async (exitCode) => {
      if (!metrics || lingerUs === 0) {
        await close();
        return exitCode;
      }
      lingering = true;
      await close();
      return { exitCode, linger: (stop) => linger(metrics, lingerUs, stop, say) };
    },
    // Idempotent: the command closes on its error path too.
    close,
  };
}

function lingerOption(text: string | undefined): number {
  if (text === undefined) return 0;
  const us = durationOption('--metrics-linger', text, true);
  if (us > MAX_LINGER_US) throw commandLineError('--metrics-linger', `at most 1h, got ${text}`, 'a few scrape intervals: e.g. --metrics-linger 15s');
  return us;
}

/** Keeps the final figures scrapeable for `lingerUs`, or until `stop` (a signal), then closes the endpoint. */
async function linger(metrics: { exporter: RunMetrics; server: MetricsServer }, lingerUs: number, stop: AbortSignal, say: ((text: string) => void) | undefined): Promise<void> {
  metrics.exporter.finish();
  if (!stop.aborted) {
    say?.(`metrics: the final figures stay at ${metrics.server.url} for ${formatUs(lingerUs)} for Prometheus to scrape (Ctrl-C ends it now)`);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stop.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, lingerUs / 1000);
      stop.addEventListener('abort', done, { once: true });
    });
  }
  await metrics.server.close();
}

async function startMetrics(host: string, port: number) {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw commandLineError('--metrics-port', `expected a port 1–65535, got ${port}`, 'e.g. --metrics-port 9464');
  // Until the remote opt-in (--allow-remote) exists, the metrics endpoint stays on this machine.
  if (!isLoopback(host)) throw commandLineError('--metrics-host', `${host} is not a loopback address`, 'metrics are served on this machine only: use 127.0.0.1 or ::1');
  const [{ RunMetrics }, { serveMetrics }] = await Promise.all([import('../metrics/exporter.ts'), import('../metrics/server.ts')]);
  const exporter = new RunMetrics();
  try {
    return { exporter, server: await serveMetrics(exporter, host, port) };
  } catch (error) {
    throw new RunStartError(`metrics on ${host}:${port}: ${(error as Error).message}`);
  }
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}
