import { optionError } from './options.ts';

/* `--segment` and `--start-at`: one host's share of a run split across hosts, and the instant they all start. */

/** Most segments of one run: far more hosts than any run needs, far fewer than would make each segment too thin to judge. */
export const MAX_SEGMENTS = 1000;

/** The variable a Kubernetes Indexed Job gives each pod: its completion index, 0-based. */
export const JOB_INDEX_VARIABLE = 'JOB_COMPLETION_INDEX';

/** A start this far in the past still starts (at once, catching up); more means the hosts cannot share it. */
export const START_AT_TOLERANCE_MS = 5_000;

/** The furthest ahead a shared start may be: hosts started a day early are a typo (a year, a zone), not a plan. */
export const START_AT_HORIZON_MS = 24 * 3600_000;

/**
 * `--segment i/N`: segment i (0-based) of N. `index/N` takes i from JOB_COMPLETION_INDEX, as a
 * pod of a Kubernetes Indexed Job has it (`stampede k8s` writes that).
 */
export function segmentOption(text: string, env: Readonly<Record<string, string | undefined>>): { index: number; count: number } {
  // Signs are matched so that -1/3 is told what is wrong with it, not only that it is not i/N.
  const match = /^\s*([+-]?\d+|index)\s*\/\s*([+-]?\d+)\s*$/.exec(text);
  if (!match)
    throw optionError('--segment', `expected i/N (segment i of N, 0-based), got ${JSON.stringify(text)}`, 'e.g. --segment 0/3, or --segment index/3 in a Kubernetes Indexed Job');
  const count = Number(match[2]);
  const indexText = match[1] === 'index' ? env[JOB_INDEX_VARIABLE] : match[1]!;
  if (indexText === undefined)
    throw optionError('--segment', `${text} takes the segment from ${JOB_INDEX_VARIABLE}, which is not set`, `set it, or give the index: --segment 0/${count}`);
  if (match[1] === 'index' && !/^\d+$/.test(indexText.trim()))
    throw optionError('--segment', `${JOB_INDEX_VARIABLE}=${JSON.stringify(indexText)} is not a whole number`, 'a Kubernetes Indexed Job sets it to 0, 1, …');
  const index = Number(indexText);
  if (count < 1 || count > MAX_SEGMENTS) throw optionError('--segment', `expected 1 to ${MAX_SEGMENTS} segments, got ${count}`, 'e.g. --segment 0/3');
  if (index < 0 || index >= count)
    throw optionError('--segment', `segment ${index} of ${count} does not exist (segments are numbered from 0: 0 to ${count - 1})`, `e.g. --segment 0/${count}`);
  return { index, count };
}

/**
 * `--start-at 2026-01-01T12:00:00Z`: epoch ms. A time zone is required (an instant shared by hosts
 * in different zones); a time more than START_AT_TOLERANCE_MS past cannot be shared any more, and
 * one more than START_AT_HORIZON_MS ahead is refused.
 */
export function startAtOption(text: string, nowMs: number): number {
  const hasZone = /(Z|[+-]\d\d:?\d\d)$/i.test(text.trim());
  const ms = hasZone && /^\d{4}-\d\d-\d\dT/.test(text.trim()) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(ms))
    throw optionError(
      '--start-at',
      `expected an ISO 8601 UTC time, got ${JSON.stringify(text)}`,
      `e.g. --start-at ${new Date(nowMs + 60_000).toISOString().replace(/\.\d+Z$/, 'Z')}`,
    );
  if (ms < nowMs - START_AT_TOLERANCE_MS) {
    throw optionError('--start-at', `${text} is ${((nowMs - ms) / 1000).toFixed(1)} s in the past`, 'every segment must be started before the shared start: give a later time');
  }
  if (ms > nowMs + START_AT_HORIZON_MS) {
    throw optionError(
      '--start-at',
      `${text} is ${((ms - nowMs) / 3600_000).toFixed(1)} h ahead, more than 24 h`,
      'start the hosts less than a day before the shared start (check the year and the zone)',
    );
  }
  return ms;
}

/** How long a segment waits at the barrier for the others, and how far after the last arrival the start is, unless told. */
export const BARRIER_DEFAULTS = { timeout: '10m', lead: '10s' } as const;

/** A lead shorter than this would start some segments before they have seen the start (they look twice a second). */
const MIN_BARRIER_LEAD_MS = 1_000;

export interface BarrierOptionTexts {
  dir: string | undefined;
  timeout: string | undefined;
  lead: string | undefined;
}

/** `--barrier-timeout` and `--barrier-lead`, defaults applied, in ms; `durationUs` reads a duration option. */
export function barrierTimes(texts: Omit<BarrierOptionTexts, 'dir'>, durationUs: (option: string, text: string) => number): { timeoutMs: number; leadMs: number } {
  const leadMs = durationUs('--barrier-lead', texts.lead ?? BARRIER_DEFAULTS.lead) / 1000;
  if (leadMs < MIN_BARRIER_LEAD_MS) throw optionError('--barrier-lead', 'must be at least 1s', 'time for every segment to see the start, e.g. --barrier-lead 10s');
  const timeoutMs = durationUs('--barrier-timeout', texts.timeout ?? BARRIER_DEFAULTS.timeout) / 1000;
  if (timeoutMs > START_AT_HORIZON_MS) throw optionError('--barrier-timeout', 'must be at most 24h', 'e.g. --barrier-timeout 10m');
  return { timeoutMs, leadMs };
}

/**
 * `--barrier DIR [--barrier-timeout 10m] [--barrier-lead 10s]`: the start decided when every segment
 * has arrived (src/barrier), instead of an instant given in advance (`--start-at`).
 */
export function barrierOption(
  texts: BarrierOptionTexts,
  run: { segment: { index: number; count: number } | undefined; startAtGiven: boolean },
  durationUs: (option: string, text: string) => number,
): { dir: string; segment: { index: number; count: number }; timeoutMs: number; leadMs: number } | undefined {
  if (texts.dir === undefined) {
    const stray = texts.timeout !== undefined ? '--barrier-timeout' : texts.lead !== undefined ? '--barrier-lead' : undefined;
    if (stray) throw optionError(stray, 'applies to a run that waits at a barrier', 'give --barrier DIR too');
    return undefined;
  }
  if (run.segment === undefined) throw optionError('--barrier', 'applies to a run split into segments', 'give --segment i/N too');
  if (run.startAtGiven) throw optionError('--barrier', 'conflicts with --start-at: the barrier decides the start', 'give one of them');
  return { dir: texts.dir, segment: run.segment, ...barrierTimes(texts, durationUs) };
}
