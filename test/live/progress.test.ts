import { describe, expect, it } from 'vitest';
import { Eta, Progress, intervalStatus, progressMode } from '../../src/cli/progress.ts';
import type { LiveInterval } from '../../src/pipeline/live.ts';

function sink(columns?: number) {
  const written: string[] = [];
  return { written, stream: { columns, write: (text: string) => written.push(text) } };
}

const live = (over: Partial<LiveInterval> = {}): LiveInterval => ({
  run: { profile: 'checkout', id: '2026-01-01T00:00:00.000Z', segment: '0/1', target: 'http://127.0.0.1:8080' },
  interval: {
    tMs: 11_000,
    warmup: false,
    sent: 998,
    ok: 990,
    failed: 8,
    dropped: 2,
    goodputRps: 990,
    latencyUs: { p50: 1200, p99: 4500, max: 9000 },
    gauges: { inFlight: 3, generatorLagMs: 0.4 },
  },
  intervalUs: 1_000_000,
  elapsedUs: 12_000_000,
  plannedUs: 60_000_000,
  phase: 'measured',
  askedRps: 1000,
  sentRps: 998,
  totals: { ok: 9000, failedByReason: { timeout: 12, dropped: 2 }, byKind: {}, byClient: {} },
  latency: { boundsUs: [], cumulative: [], count: 0, sumUs: 0 },
  gauges: {},
  ...over,
});

describe('progress mode', () => {
  it.each([
    [{}, true, 'live'],
    [{}, false, 'off'],
    [{ progress: true }, false, 'lines'],
    [{ progress: true }, true, 'live'],
    [{ progress: false }, true, 'off'],
    [{ quiet: true }, true, 'off'],
    [{ quiet: true, progress: true }, false, 'off'],
  ] as const)('%j with a terminal: %s → %s', (options, isTTY, mode) => {
    expect(progressMode(options, isTTY)).toBe(mode);
  });
});

describe('status line', () => {
  it('shows elapsed/total, phase, asked vs sent, in flight, dropped, p50/p99, errors by reason and generator lag', () => {
    expect(intervalStatus(live())).toBe('12s/60s (20%) measured · asked 1,000 rps · sent 998 rps · in flight 3 · dropped 2 · p50 1.2ms p99 4.5ms · errors timeout 12 · lag 400us');
    expect(intervalStatus(live({ events: ['removeShards: 127.0.0.1:11314 leaves the ring (3 in it)'] }))).toMatch(
      / · lag 400us · ◆ removeShards: 127\.0\.0\.1:11314 leaves the ring \(3 in it\)$/,
    );
  });

  it('shows % complete and, once the run has a pace, the time left', () => {
    expect(intervalStatus(live(), 48_000)).toMatch(/^12s\/60s \(20%, ETA 48s\) measured · /);
    expect(intervalStatus(live(), 125_000)).toMatch(/^12s\/60s \(20%, ETA 2m05s\) measured · /);
    expect(intervalStatus(live(), 3_720_000)).toMatch(/^12s\/60s \(20%, ETA 1h02m\) measured · /);
    expect(intervalStatus(live({ elapsedUs: 61_000_000, phase: 'drain' }))).toMatch(/^61s\/60s \(100%\) drain · /);
  });

  it('leaves out what the run does not measure (no generator lag on the model)', () => {
    const line = intervalStatus(live({ interval: { ...live().interval, gauges: {} }, totals: { ok: 1, failedByReason: {}, byKind: {}, byClient: {} } }));
    expect(line).not.toContain('lag');
    expect(line).not.toContain('in flight');
    expect(line).toContain('errors 0');
  });
});

describe('Eta', () => {
  it('projects the pace so far: real time, and a model ten times faster; a run whose clock goes back starts again', () => {
    let now = 0;
    const eta = new Eta(() => now);
    expect(eta.remainingMs(1_000_000, 60_000_000)).toBeUndefined();
    now = 1000;
    expect(eta.remainingMs(2_000_000, 60_000_000)).toBe(58_000);
    // The next step of a qualification, on the model: its first interval has no pace yet, its second ten times real time.
    now = 2000;
    expect(eta.remainingMs(1_000_000, 10_000_000)).toBeUndefined();
    now = 2100;
    expect(eta.remainingMs(2_000_000, 10_000_000)).toBeCloseTo(800, 9);
    // Past the plan (the drain): no ETA.
    expect(eta.remainingMs(11_000_000, 10_000_000)).toBeUndefined();
  });
});

describe('Progress', () => {
  it('builds a status given as a function only when it is drawn', () => {
    const { written, stream } = sink(120);
    const progress = new Progress(stream, 'live', () => 0);
    let built = 0;
    const text = () => `line ${++built}`;
    for (let i = 0; i < 5; i++) progress.status(text);
    expect([built, written]).toEqual([1, ['\r\x1b[2Kline 1']]);
  });

  it('in a terminal rewrites one line in place, at most ten times per second of wall time', () => {
    const { written, stream } = sink(120);
    let now = 0;
    const progress = new Progress(stream, 'live', () => now);
    progress.status('a');
    now = 50;
    progress.status('b');
    now = 101;
    progress.status('c');
    expect(written).toEqual(['\r\x1b[2Ka', '\r\x1b[2Kc']);
    progress.end();
    expect(written.at(-1)).toBe('\r\x1b[2K');
  });

  it('cuts a live line to the terminal width, so it never wraps', () => {
    const { written, stream } = sink(30);
    new Progress(stream, 'live', () => 0).status('x'.repeat(100));
    expect(written[0]).toBe(`\r\x1b[2K${'x'.repeat(28)}…`);
  });

  it('prints every status as its own line when not a terminal, however fast they come', () => {
    const { written, stream } = sink();
    const progress = new Progress(stream, 'lines', () => 0);
    for (const s of ['a', 'b', 'c']) progress.status(s);
    progress.end();
    expect(written).toEqual(['a\n', 'b\n', 'c\n']);
  });

  it('prints nothing when off, but a permanent line always; a live line is cleared before it', () => {
    const off = sink();
    const quiet = new Progress(off.stream, 'off', () => 0);
    quiet.status('a');
    quiet.line('step 1: pass');
    expect(off.written).toEqual(['step 1: pass\n']);
    const tty = sink(80);
    const progress = new Progress(tty.stream, 'live', () => 0);
    progress.status('a');
    progress.line('step 1: pass');
    progress.status('b');
    expect(tty.written).toEqual(['\r\x1b[2Ka', '\r\x1b[2K', 'step 1: pass\n', '\r\x1b[2Kb']);
  });
});
