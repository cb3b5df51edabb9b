import { describe, expect, it } from 'vitest';
import { ExitCode, exitCodeOf } from '../../src/cli/exit-codes.ts';

/** Every verdict a command turns into an exit code: a run's (merge's, qualify's are among them) and compare's. */
const ROWS = [
  ['PASS', ExitCode.Ok],
  ['NO SLO', ExitCode.Ok],
  ['FAIL', ExitCode.SloFailed],
  ['INVALID', ExitCode.SloFailed],
  ['DIVERGED', ExitCode.Diverged],
  ['no regression', ExitCode.Ok],
  ['regressed', ExitCode.SloFailed],
  ['not comparable', ExitCode.NotComparable],
] as const;

describe('exitCodeOf', () => {
  it.each(ROWS)('%s exits %i', (verdict, code) => {
    expect(exitCodeOf({ verdict, interrupted: false })).toBe(code);
    expect(exitCodeOf({ verdict })).toBe(code);
  });

  it.each(ROWS)('an interrupted %s exits 130: what was measured cannot pass', (verdict) => {
    expect(exitCodeOf({ verdict, interrupted: true })).toBe(ExitCode.Interrupted);
  });
});
