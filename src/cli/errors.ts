import { PlanRefusedError } from '../analysis/plan-refused.ts';
import { BarrierError } from '../barrier/errors.ts';
import { RunStartError, TimelineRefusedError } from '../driver/errors.ts';
import { InputFileError } from '../files/input-file.ts';
import { ProfileError, formatProfileError } from '../profile/issues.ts';
import { TargetError } from '../profile/target.ts';
import { ArtifactWriteError } from '../run-folder/write-errors.ts';
import { ExitCode } from './exit-codes.ts';

/** A command line that cannot run (an unknown option, a missing argument, a bad value): bad input, exit 2. */
export class CommandLineError extends Error {
  override readonly name = 'CommandLineError';
}

/** Issues of the command line itself (not of a file) carry this as their file. */
export const COMMAND_LINE = '<command line>';

/**
 * The one place that turns an error into an exit code and a message on stderr: bad input 2, could
 * not start or could not write its files 3, anything else is a bug (70) — one line, and the stack only with STAMPEDE_DEBUG set.
 * A command-line mistake is one line naming the option; a profile's problems are one block each.
 */
export function exitCodeFor(error: unknown, stderr: (text: string) => void, debug = false): number {
  if (error instanceof ProfileError && error.file === COMMAND_LINE) {
    for (const issue of error.issues) stderr(`stampede: ${issue.path ? `${issue.path}: ` : ''}${oneLine(issue.message)} (${oneLine(issue.hint)})\n`);
    return ExitCode.InvalidInput;
  }
  if (error instanceof ProfileError) {
    stderr(`${formatProfileError(error)}\n`);
    return ExitCode.InvalidInput;
  }
  if (error instanceof PlanRefusedError) {
    stderr(`stampede: ${error.message}\n`);
    return ExitCode.InvalidInput;
  }
  // A file given to read that is missing, not a regular file, too big or not in its format: named, with why.
  if (error instanceof TargetError || error instanceof CommandLineError || error instanceof TimelineRefusedError || error instanceof InputFileError) {
    stderr(`stampede: ${oneLine(error.message)}\n`);
    return ExitCode.InvalidInput;
  }
  if (error instanceof RunStartError || error instanceof BarrierError) {
    stderr(`stampede: could not start: ${oneLine(error.message)}\n`);
    return ExitCode.CouldNotStart;
  }
  // A full or read-only disk is the machine's state, not a bug: the file, the reason, what was kept.
  if (error instanceof ArtifactWriteError) {
    stderr(`stampede: ${error.message}\n`);
    return ExitCode.CouldNotStart;
  }
  const message = error instanceof Error ? error.message : String(error);
  stderr(`stampede: internal error: ${message.split('\n')[0]}${debug ? '' : ' (set STAMPEDE_DEBUG=1 for the stack)'}\n`);
  if (debug && error instanceof Error) stderr(`${error.stack}\n`);
  return ExitCode.InternalError;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
