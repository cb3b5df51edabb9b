import { performance } from 'node:perf_hooks';
import { formatCount, formatUs } from '../analysis/format.ts';
import { GENERATOR_GAUGES } from '../generator/health.ts';
import type { LiveInterval } from '../pipeline/live.ts';
import { SHARED_GAUGES, gaugeValue } from '../recorder/gauges.ts';

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

  /**
   * The current state: redrawn in place (throttled), printed as a line, or dropped, by mode. Given
   * as a function, the text is built only when it is shown: a model run closes intervals far faster
   * than the line redraws.
   */
  status(text: string | (() => string)): void {
    if (this.mode === 'lines') this.out.write(`${typeof text === 'string' ? text : text()}\n`);
    if (this.mode !== 'live') return;
    const now = this.nowMs();
    if (now - this.lastDrawMs < 1000 / REDRAWS_PER_SECOND) return;
    this.lastDrawMs = now;
    this.draw(typeof text === 'string' ? text : text());
  }

  private draw(text: string): void {
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
 * How far a run is and when it will end, from its pace so far in wall-clock time: real time for a
 * real target, far faster on the model. One per live view; a run whose clock goes back (the next
 * step of a qualification) starts a new pace. Two subtractions and a division per interval.
 */
export class Eta {
  private fromWallMs = 0;
  private fromUs = 0;
  private lastUs = Number.POSITIVE_INFINITY;

  constructor(private readonly nowMs: () => number = () => performance.now()) {}

  /** Wall-clock ms until `plannedUs`; undefined on a run's first interval (no pace yet), and past the plan (the drain). */
  remainingMs(elapsedUs: number, plannedUs: number): number | undefined {
    const now = this.nowMs();
    if (elapsedUs <= this.lastUs) {
      this.fromWallMs = now;
      this.fromUs = elapsedUs;
    }
    this.lastUs = elapsedUs;
    if (elapsedUs <= this.fromUs || elapsedUs >= plannedUs) return undefined;
    return ((now - this.fromWallMs) / (elapsedUs - this.fromUs)) * (plannedUs - elapsedUs);
  }
}

/**
 * One interval as a status line: `12s/60s (20%, ETA 48s) measured · asked 1,000 rps · sent 998 rps ·
 * in flight 3 · dropped 0 · p50 1.2ms p99 4.5ms · errors timeout 2 · lag 0.4ms · ◆ removeShards: …`
 * (ETA: from the run's pace so far, see Eta; lag: real targets only; ◆ marks each timeline step due
 * in the interval).
 */
export function intervalStatus(live: LiveInterval, etaMs?: number): string {
  const { interval } = live;
  const inFlight = gaugeValue(interval.gauges, SHARED_GAUGES.inFlight);
  const lagMs = gaugeValue(interval.gauges, GENERATOR_GAUGES.lagMs);
  const errors = Object.entries(live.totals.failedByReason).filter(([reason]) => reason !== 'dropped');
  return [
    `${seconds(live.elapsedUs)}/${seconds(live.plannedUs)} ${completion(live.elapsedUs, live.plannedUs, etaMs)}${live.phase}`,
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

/** "(20%, ETA 48s) ", "(3%) " before the first ETA, "" for a run of no known length. */
function completion(elapsedUs: number, plannedUs: number, etaMs: number | undefined): string {
  if (!(plannedUs > 0)) return '';
  const percent = Math.min(100, Math.floor((elapsedUs / plannedUs) * 100));
  return etaMs === undefined ? `(${percent}%) ` : `(${percent}%, ETA ${clock(etaMs)}) `;
}

/** 48s, 2m05s, 1h02m. */
function clock(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s}s`;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)}m${pad(s % 60)}s`;
  return `${Math.floor(s / 3600)}h${pad(Math.floor(s / 60) % 60)}m`;
}

function seconds(us: number): string {
  return `${Number((us / 1e6).toFixed(1))}s`;
}
