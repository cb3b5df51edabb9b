import { isIP } from 'node:net';
import { RunStartError } from '../driver/errors.ts';
import type { LiveInterval, LiveObserver } from '../pipeline/live.ts';
import { commandLineError } from './input.ts';
import { Eta, Progress, intervalStatus, progressMode } from './progress.ts';

/*
 * What a run shows while it lasts: the progress line on stderr and, with --metrics-port, the
 * Prometheus endpoint. Both are fed by the pipeline's per-interval snapshot; the metrics server
 * stops when the command ends.
 */

export interface LiveArgs {
  quiet?: boolean | undefined;
  progress?: boolean | undefined;
  metricsPort?: number | undefined;
  metricsHost?: string | undefined;
}

export interface LiveView {
  readonly progress: Progress;
  /**
   * Pass to the run as `onInterval`; `prefix` labels the line (a qualification's step). Undefined
   * when nothing is shown (--quiet, or no terminal, and no metrics): no snapshot is built on the
   * sending thread for nobody.
   */
  observer(prefix?: () => string): LiveObserver | undefined;
  close(): Promise<void>;
}

export async function startLiveView(args: LiveArgs): Promise<LiveView> {
  const progress = new Progress(process.stderr, progressMode(args, process.stderr.isTTY === true));
  const metrics = args.metricsPort === undefined ? undefined : await startMetrics(args.metricsHost ?? '127.0.0.1', args.metricsPort);
  if (metrics && args.quiet !== true) progress.line(`metrics: ${metrics.server.url}`);
  let closed: Promise<void> | undefined;
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
    // Idempotent: the command closes before printing its result, and again on its error path.
    close: () =>
      (closed ??= (async () => {
        progress.end();
        await metrics?.server.close();
      })()),
  };
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
