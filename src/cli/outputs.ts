import { describeLosses, type Outputs } from '../run-folder/outputs.ts';
import { ArtifactWriteError, asWriteError } from '../run-folder/write-errors.ts';
import { ExitCode } from './exit-codes.ts';

/** How the last line names the command's own output when it could not be written. */
export const STANDARD_OUTPUT = 'standard output';

/**
 * Standard output sent to a file on a full disk (`stampede k8s … > /full/job.yaml`) fails its
 * writes: unheard, Node ends the process with exit 1 (read as a FAIL) and a stack. Recorded as a
 * lost file instead. A reader that went away (EPIPE: `| head`) chose to stop reading: no loss.
 * Returns the check to make at the end: the error event comes a tick after the write that failed.
 */
export function watchStandardOutput(outputs: Outputs, stream: NodeJS.WriteStream = process.stdout): () => void {
  const record = (error: unknown) => {
    if (outputs.isLost(STANDARD_OUTPUT) || (error as NodeJS.ErrnoException).code === 'EPIPE') return;
    const refused = asWriteError(STANDARD_OUTPUT, error);
    outputs.lose(STANDARD_OUTPUT, refused instanceof ArtifactWriteError ? refused.reason : String((error as Error).message));
  };
  stream.on('error', record);
  return () => {
    if (stream.errored) record(stream.errored);
  };
}

/**
 * The command's exit code once its outputs are known. Any lost file makes it 3 and is named in the
 * last line, after the verdict the command printed (a PASS measured but not saved shows both) —
 * unless a signal ended the command (130/143 say that first) or a bug did (70).
 */
export function settleOutputs(outputs: Outputs, code: number, bySignal: boolean, stderr: (text: string) => void): number {
  const lost = outputs.lost;
  if (lost.length === 0) return code;
  stderr(`stampede: ${describeLosses(lost)}\n`);
  return bySignal || code === ExitCode.InternalError ? code : ExitCode.CouldNotStart;
}
