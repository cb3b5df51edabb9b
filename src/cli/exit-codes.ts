import type { ComparisonVerdict } from '../analysis/compare.ts';
import type { Verdict } from '../analysis/verdict.ts';

/** Exit codes, stable for CI scripts. */
export const ExitCode = {
  /** The run finished and its SLO held (or it had none). */
  Ok: 0,
  /** The run finished and its SLO failed, or a realism flag made its verdict INVALID. */
  SloFailed: 1,
  /**
   * Bad profile, bad override, bad target or a remote host not allowed, bad command line (an unknown option, a value out of range), a file
   * given to read that is not a regular file under its bound or not what it should hold (src/files): before any traffic.
   */
  InvalidInput: 2,
  /**
   * The run could not start (no connection to any server of the target before the clock, a worker that died, a port in use, a segment
   * whose barrier never released it: the other segments never all arrived, or the run started without it), or its files could not be
   * written (disk full, read-only file system, a folder that is missing or takes no files): the message names the file or the segments.
   */
  CouldNotStart: 3,
  /**
   * The modelled system diverged: its pending state passed `limits.maxModelState` (a retry storm, an
   * unbounded queue above capacity) and the run stopped there, its results so far written.
   */
  Diverged: 4,
  /**
   * compare: one side's figures are no evidence of a change (its verdict is INVALID, or it was
   * interrupted), so nothing was compared — neither a regression nor a pass.
   */
  NotComparable: 5,
  /** A bug in stampede (EX_SOFTWARE of sysexits.h): one line on stderr, the stack with STAMPEDE_DEBUG=1. */
  InternalError: 70,
  /** Interrupted (Ctrl-C, SIGINT): what was measured is written; the verdict cannot be PASS. */
  Interrupted: 130,
  /** Terminated (SIGTERM, 128 + 15): as Interrupted. */
  Terminated: 143,
} as const;

/** One of the codes above. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** Each code as `--help` states it: a Record over ExitCode, so a code cannot be added without its line. */
const MEANINGS: Readonly<Record<keyof typeof ExitCode, string>> = {
  Ok: 'PASS (or no SLO)',
  SloFailed: 'FAIL, INVALID or a regression',
  InvalidInput: 'bad input (profile, override, option)',
  CouldNotStart: 'could not start, or a file not saved (named in the last line)',
  Diverged: 'the model diverged',
  NotComparable: 'not comparable (compare: a side INVALID or interrupted)',
  InternalError: 'internal error (a bug; --debug for the stack)',
  Interrupted: 'interrupted (SIGINT)',
  Terminated: 'terminated (SIGTERM)',
};

/** "Exit codes: 0 PASS (or no SLO) · 1 …": every code any command can return, for every command's `--help`. */
export function exitCodesLine(): string {
  const codes = (Object.keys(ExitCode) as (keyof typeof ExitCode)[]).map((name) => `${ExitCode[name]} ${MEANINGS[name]}`);
  return `Exit codes: ${codes.join(' · ')}.`;
}

/**
 * The exit code of a verdict: a run's, a merged run's, a qualification's or a comparison's. An
 * interruption outranks the verdict (what was measured is written, but cannot pass). INVALID fails
 * a CI gate like a failed SLO: a PASS the test setup cannot support is not a pass.
 */
export function exitCodeOf(judged: { readonly verdict: Verdict | ComparisonVerdict; readonly interrupted?: boolean }): ExitCodeValue {
  if (judged.interrupted === true) return ExitCode.Interrupted;
  switch (judged.verdict) {
    case 'PASS':
    case 'NO SLO':
    case 'no regression':
      return ExitCode.Ok;
    case 'FAIL':
    case 'INVALID':
    case 'regressed':
      return ExitCode.SloFailed;
    case 'DIVERGED':
      return ExitCode.Diverged;
    case 'not comparable':
      return ExitCode.NotComparable;
    default:
      return unreachable(judged.verdict);
  }
}

/** A verdict no case above handles is a type error here. */
function unreachable(verdict: never): never {
  throw new Error(`no exit code for the verdict ${JSON.stringify(verdict)}`);
}
