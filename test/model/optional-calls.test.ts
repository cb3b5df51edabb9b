import { describe, expect, it } from 'vitest';
import { mean, rehearse, SEEDS, series } from './incidents/support.ts';

/**
 * Optional calls on Black Friday (incidents.md §3): the delivery-scheduling call marked optional.
 * Its pool (5 connections per front-end server towards a service that serves 25 at a time) is
 * exhausted within seconds of the promotion; an optional call then skips scheduling at once
 * instead of holding a front-end thread forever, and an operator's `set maxOpen: 0` switches it
 * off without failing a single page.
 */
describe('optional calls: a disabled or exhausted optional dependency is skipped, the page goes on', () => {
  const BROWSE = 3920;
  const OPTIONAL = 'topology.services.frontend.calls[2].optional=true';

  it.each(SEEDS)('seed %i: exhausted — front-end threads never pile up and no page fails (without: all 3,000 stuck)', { timeout: 60_000 }, async (seed) => {
    const run = await rehearse('black-friday', seed, [OPTIONAL]);
    const threads = series(run, 'busyWorkers.frontend');
    expect(Math.max(...threads)).toBeLessThan(1500);
    expect(run.details.requests.failed).toBe(0);
    const group = run.details.clientGroups['fe-scheduling'] as unknown as { optionalSkipped: number; optionalFailed: number };
    // Delivery orders beyond what scheduling serves (25 at a time, ~28/s of 80/s) skip it.
    expect(group.optionalSkipped).toBeGreaterThan(5000);
    expect(group.optionalFailed).toBe(0);
    expect(mean(series(run, 'goodputRps'), 225, 240)).toBeGreaterThan(0.95 * BROWSE);
  });

  it.each(SEEDS)('seed %i: switched off by an operator (set maxOpen 0) — skipped, never pool_disabled', { timeout: 60_000 }, async (seed) => {
    const run = await rehearse('black-friday', seed, [OPTIONAL, 'topology.timeline=[{type: set, at: 120s, clientGroup: fe-scheduling, maxOpen: 0}]']);
    expect(run.recorder.failures('pool_disabled')).toBe(0);
    expect(run.details.requests.failed).toBe(0);
    // After the switch every delivery order (80/s) skips it: no attempts in the last minute.
    const attempts = series(run, 'attemptsRps.fe-scheduling');
    expect(Math.max(...attempts.slice(125))).toBe(0);
  });
});
