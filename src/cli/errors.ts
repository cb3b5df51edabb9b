import { PlanRefusedError } from '../analysis/plan-check.ts';
import { RunStartError } from '../driver/errors.ts';
import { ProfileError, formatProfileError } from '../profile/issues.ts';
import { TargetError } from '../profile/target.ts';
import { ExitCode } from './exit-codes.ts';

/** A command line yargs rejected (unknown option, missing argument): bad input, exit 2. */
export class CommandLineError extends Error {
  override readonly name = 'CommandLineError';
}

/**
 * The one place that turns an error into an exit code and a message on stderr: bad input 2, could
 * not start 3, anything else is a bug (70) — one line, and the stack only with STAMPEDE_DEBUG set.
 */
export function exitCodeFor(error: unknown, stderr: (text: string) => void, debug = false): number {
  if (error instanceof ProfileError) {
    stderr(`${formatProfileError(error)}\n`);
    return ExitCode.InvalidInput;
  }
  if (error instanceof PlanRefusedError) {
    stderr(`stampede: ${error.message}\n`);
    return ExitCode.InvalidInput;
  }
  if (error instanceof TargetError || error instanceof CommandLineError) {
    stderr(`stampede: ${error.message}\nRun stampede --help for usage.\n`);
    return ExitCode.InvalidInput;
  }
  if (error instanceof RunStartError) {
    stderr(`stampede: could not start: ${error.message}\n`);
    return ExitCode.CouldNotStart;
  }
  const message = error instanceof Error ? error.message : String(error);
  stderr(`stampede: internal error: ${message.split('\n')[0]}${debug ? '' : ' (set STAMPEDE_DEBUG=1 for the stack)'}\n`);
  if (debug && error instanceof Error) stderr(`${error.stack}\n`);
  return ExitCode.InternalError;
}
