import { performance } from 'node:perf_hooks';
import { formatCount, formatUs } from '../analysis/format.ts';
import type { LiveInterval } from '../pipeline/live.ts';

/*
 * The status line a run shows on stderr while it lasts. In a terminal it is one line rewritten in
 * place; elsewhere (`--progress` in CI) the same text as one plain line per interval.
 */

/** live: one line rewritten in place; lines: a plain line each; off: nothing. */
export type ProgressMode = 'live' | 'lines' | 'off';

/** --quiet silences it; --progress / --no-progress choose; by default it is on only in a terminal. */
export function progressMode(options: { quiet?: boolean | undefined; progress?: boolean | undefined }, isTTY: boolean): ProgressMode {
  if (options.quiet === true || options.progress === false) return 'off';
  if (isTTY) return 'live';
  return options.progress === true ? 'lines' : 'off';
}

export interface ProgressStream {
  write(text: string): unknown;
  /** Terminal width: a live line longer than this would wrap and could not be rewritten. */
  readonly columns?: number | undefined;
}

/** The model runs faster than real time: at most this many redraws per second of wall time. */
const REDRAWS_PER_SECOND = 10;
const CLEAR_LINE = '\r\x1b[2K';

export class Progress {
  private lastDrawMs = Number.NEGATIVE_INFINITY;
  private shown = false;

  constructor(
    private readonly out: ProgressStream,
    readonly mode: ProgressMode,
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  /** The current state: redrawn in place (throttled), printed as a line, or dropped, by mode. */
  status(text: string): void {
    if (this.mode === 'lines') this.out.write(`${text}\n`);
    if (this.mode !== 'live') return;
    const now = this.nowMs();
    if (now - this.lastDrawMs < 1000 / REDRAWS_PER_SECOND) return;
    this.lastDrawMs = now;
    // A terminal that reports no size (a bare pseudo-terminal) reads 0 columns: assume 80.
    const width = Math.max(20, (this.out.columns || 80) - 1);
    this.out.write(`${CLEAR_LINE}${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
    this.shown = true;
  }

  /** A line that stays (a finished qualification step), printed in every mode; the live line is redrawn after it. */
  line(text: string): void {
    this.end();
    this.out.write(`${text}\n`);
    this.lastDrawMs = Number.NEGATIVE_INFINITY;
  }

  /** Clears the live line, so what follows starts on a clean line. */
  end(): void {
    if (this.shown) this.out.write(CLEAR_LINE);
    this.shown = false;
  }
}

/**
 * One interval as a status line: `12s/60s measured · asked 1,000 rps · sent 998 rps · in flight 3 ·
 * dropped 0 · p50 1.2ms p99 4.5ms · errors timeout 2 · lag 0.4ms · ◆ removeShards: …` (lag: real
 * targets only; ◆ marks each timeline step due in the interval).
 */
export function intervalStatus(live: LiveInterval): string {
  const { interval } = live;
  const inFlight = interval.gauges['inFlight'];
  const lagMs = interval.gauges['generatorLagMs'];
  const errors = Object.entries(live.totals.failedByReason).filter(([reason]) => reason !== 'dropped');
  return [
    `${seconds(live.elapsedUs)}/${seconds(live.plannedUs)} ${live.phase}`,
    `asked ${formatCount(live.askedRps)} rps`,
    `sent ${formatCount(live.sentRps)} rps`,
    ...(inFlight !== undefined ? [`in flight ${formatCount(inFlight)}`] : []),
    `dropped ${formatCount(interval.dropped)}`,
    `p50 ${formatUs(interval.latencyUs.p50)} p99 ${formatUs(interval.latencyUs.p99)}`,
    `errors ${errors.length === 0 ? '0' : errors.map(([reason, n]) => `${reason} ${formatCount(n)}`).join(', ')}`,
    ...(lagMs !== undefined ? [`lag ${formatUs(lagMs * 1000)}`] : []),
    ...(live.events ?? []).map((label) => `◆ ${label}`),
  ].join(' · ');
}

function seconds(us: number): string {
  return `${Number((us / 1e6).toFixed(1))}s`;
}
