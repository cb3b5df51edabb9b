import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { stampede } from '../helpers/cli.ts';

/* CSV exports through the real CLI, parsed back and held against result.json, intervals.jsonl and qualification.json. */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-csv-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const SMALL = 'test/fixtures/cli/small.yaml';
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const jsonLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

/** A CSV file as its header and its rows of cells, parsed by csv-parse; CRLF line ends, as RFC 4180 has them. */
function readCsv(file: string): { header: string[]; rows: Record<string, string>[] } {
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\r\n')).toBe(true);
  expect(text.replace(/\r\n/g, '')).not.toContain('\n');
  const [header, ...rows] = parse(text, { record_delimiter: '\r\n' }) as string[][];
  return { header: header!, rows: rows.map((row) => Object.fromEntries(row.map((cell, i) => [header![i]!, cell]))) };
}

/** A cell read back as the JSON value it came from: a number, a boolean, text, or absent. */
function cell(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  if (text === 'true' || text === 'false') return text === 'true';
  return Number.isFinite(Number(text)) ? Number(text) : text;
}

/** What intervals.csv must hold for one interval of intervals.jsonl. */
function expectInterval(row: Record<string, string>, interval: Record<string, any>, intervalMs: number, gauges: Record<string, { unit: string }>) {
  expect(cell(row.start_ms)).toBe(interval.tMs);
  expect(cell(row.warmup)).toBe(interval.warmup);
  expect(cell(row.covered_ms)).toBe(interval.coveredMs ?? intervalMs);
  for (const key of ['sent', 'ok', 'failed', 'dropped']) expect(cell(row[key])).toBe(interval[key]);
  expect(cell(row.goodput_rps)).toBe(interval.goodputRps);
  for (const q of ['p50', 'p99', 'max']) expect(cell(row[`latency_${q}_us`])).toBe(interval.latencyUs[q]);
  for (const [key, value] of Object.entries(interval.gauges)) expect(cell(row[`gauge_${key}_${gauges[key.split('.')[0]!]!.unit}`])).toBe(value);
}

describe('CSV of a run', { timeout: 120_000 }, () => {
  it('--csv writes intervals.csv and summary.csv equal to intervals.jsonl and result.json; export csv -o writes the same', () => {
    const out = join(scratch, 'run');
    const run = stampede(['run', SMALL, '--out', out, '--csv', '--quiet']);
    expect(run.status).toBe(0);
    const result = json(join(out, 'result.json'));
    const intervals = jsonLines(join(out, 'intervals.jsonl'));
    const csv = readCsv(join(out, 'intervals.csv'));
    expect(csv.header.slice(0, 11)).toEqual([
      'start_ms',
      'warmup',
      'covered_ms',
      'sent',
      'ok',
      'failed',
      'dropped',
      'goodput_rps',
      'latency_p50_us',
      'latency_p99_us',
      'latency_max_us',
    ]);
    expect(csv.rows).toHaveLength(intervals.length);
    csv.rows.forEach((row, i) => expectInterval(row, intervals[i], result.intervals.intervalMs, result.gauges));

    const summary = readCsv(join(out, 'summary.csv'));
    expect(summary.rows).toHaveLength(1);
    const s = summary.rows[0]!;
    expect([cell(s.profile), cell(s.started_at), cell(s.verdict), cell(s.interrupted)]).toEqual(['small', result.startedAt, 'PASS', false]);
    expect([cell(s.asked_rps), cell(s.achieved_rps), cell(s.duration_ms), cell(s.warmup_ms)]).toEqual([
      result.rate.askedRps,
      result.rate.achievedRps,
      result.durationMs,
      result.warmupMs,
    ]);
    expect([cell(s.requests_sent), cell(s.requests_not_sent), cell(s.requests_in_flight_at_end)]).toEqual([
      result.requests.sent,
      result.requests.notSent,
      result.requests.inFlightAtEnd,
    ]);
    for (const q of ['mean', 'p50', 'p90', 'p99', 'p999', 'max']) expect(cell(s[`latency_${q}_us`])).toBe(result.latencyUs[q]);
    expect(cell(s.latency_count)).toBe(result.latencyUs.count);

    const exported = join(scratch, 'exported');
    const again = stampede(['export', 'csv', out, '-o', exported]);
    expect(again.status).toBe(0);
    expect(again.stderr).toBe(`stampede: wrote ${join(exported, 'intervals.csv')}, ${join(exported, 'summary.csv')}\n`);
    for (const name of ['intervals.csv', 'summary.csv']) expect(readFileSync(join(exported, name), 'utf8')).toBe(readFileSync(join(out, name), 'utf8'));
  });

  it('export csv refuses a folder stampede did not write, and the options of export k6 (exit 2, one line)', () => {
    const empty = stampede(['export', 'csv', scratch]);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toBe(`stampede: <folder>: no result.json or qualification.json in ${scratch} (give a folder written by stampede run or stampede qualify)\n`);
    const set = stampede(['export', 'csv', scratch, '--set', 'seed=2']);
    expect(set.status).toBe(2);
    expect(set.stderr).toBe('stampede: --set: applies to export k6, not to a run folder (drop --set)\n');
  });
});

describe('CSV of a qualification', { timeout: 120_000 }, () => {
  it('steps.csv equals qualification.json, summary.csv its verdict and capacity, intervals.csv every step’s intervals', () => {
    const out = join(scratch, 'qualify');
    const q = stampede(['qualify', SMALL, '--out', out, '--step', '1s', '--warmup', '0', '--start', '8000', '--max-steps', '3', '--csv', '--quiet']);
    expect([0, 1]).toContain(q.status);
    const qualification = json(join(out, 'qualification.json'));
    const steps = readCsv(join(out, 'steps.csv'));
    expect(steps.rows).toHaveLength(qualification.steps.length);
    steps.rows.forEach((row, i) => {
      const s = qualification.steps[i];
      expect([cell(row.step), cell(row.dir), cell(row.purpose), cell(row.asked_rps), cell(row.achieved_rps), cell(row.pass)]).toEqual([
        i + 1,
        s.dir,
        s.purpose,
        s.askedRps,
        s.achievedRps,
        s.pass,
      ]);
      expect([cell(row.latency_p50_us), cell(row.latency_p99_us), cell(row.latency_p999_us), cell(row.latency_max_us)]).toEqual([
        s.latencyUs.p50,
        s.latencyUs.p99,
        s.latencyUs.p999,
        s.latencyUs.max,
      ]);
      expect([cell(row.p99_low_us), cell(row.p99_high_us), cell(row.error_rate_ratio), cell(row.duration_ms)]).toEqual([
        s.p99IntervalUs.lowUs,
        s.p99IntervalUs.highUs,
        s.errorRate,
        s.durationMs,
      ]);
      expect(row.failed_checks).toBe(s.failedChecks.join('; '));
    });
    const summary = readCsv(join(out, 'summary.csv')).rows[0]!;
    expect([cell(summary.verdict), cell(summary.capacity_rps), cell(summary.expected_peak_rps), cell(summary.headroom_ratio), cell(summary.steps)]).toEqual([
      qualification.verdict,
      qualification.capacityRps,
      qualification.expectedPeakRps,
      qualification.headroom,
      qualification.steps.length,
    ]);
    const intervals = readCsv(join(out, 'intervals.csv'));
    expect(intervals.header[0]).toBe('step');
    const expected = qualification.steps.flatMap((s: { dir: string }, i: number) =>
      jsonLines(join(out, s.dir, 'intervals.jsonl')).map((interval) => ({ step: i + 1, interval, dir: s.dir })),
    );
    expect(intervals.rows).toHaveLength(expected.length);
    intervals.rows.forEach((row, i) => {
      const { step, interval, dir } = expected[i]!;
      const result = json(join(out, dir, 'result.json'));
      expect(cell(row.step)).toBe(step);
      expectInterval(row, interval, result.intervals.intervalMs, result.gauges);
    });
  });
});
