import { hostname } from 'node:os';
import { dirname } from 'node:path';
import type { RunAnalysis } from '../analysis/analyse-run.ts';
import type { Qualification } from '../analysis/qualification.ts';
import type { RunResult } from '../recorder/result.ts';
import { type CiOutcome, junitXml, qualificationOutcome, runOutcome, stepSummary } from '../report/ci.ts';
import { makeFolders, type Outputs } from '../run-folder/index.ts';
import { ArtifactWriteError, asWriteError } from '../run-folder/write-errors.ts';

/**
 * The outcome where CI reads it: JUnit XML at `--junit FILE` (its folder created), and a Markdown
 * block appended to the file $GITHUB_STEP_SUMMARY names, when that variable is set. Both are built
 * from the result and the analysis, which hold no secret (a `--set` that wrote one is [redacted]),
 * and written through `outputs`: written after the run, a file that cannot be (a full disk, a folder
 * that cannot be made) is an output lost (exit 3, named last), not bad input.
 */
export function writeCiOutputs(outcome: CiOutcome, junitFile: string | undefined, outputs: Outputs, env: NodeJS.ProcessEnv = process.env): void {
  if (junitFile !== undefined && makeFoldersFor(junitFile, outputs)) outputs.write(junitFile, junitXml(outcome, hostname()));
  const summaryFile = env.GITHUB_STEP_SUMMARY;
  if (summaryFile) outputs.append(summaryFile, `${stepSummary(outcome)}\n`);
}

/** The folders `file` goes into; false, and the file recorded lost, when they cannot be made. */
function makeFoldersFor(file: string, outputs: Outputs): boolean {
  try {
    makeFolders(dirname(file));
    return true;
  } catch (error) {
    const refused = asWriteError(file, error);
    if (!(refused instanceof ArtifactWriteError)) throw refused;
    outputs.lose(file, refused.reason);
    return false;
  }
}

/** A run's CI outputs (`stampede run`). */
export function writeRunCiOutputs(run: { result: RunResult; analysis: RunAnalysis; dir: string }, junitFile: string | undefined, outputs: Outputs): void {
  writeCiOutputs(runOutcome(run.result, run.analysis, run.dir), junitFile, outputs);
}

/** A qualification's CI outputs (`stampede qualify`); `stepWallMs`: the wall time of each step. */
export function writeQualificationCiOutputs(q: Qualification, dir: string, junitFile: string | undefined, stepWallMs: readonly number[], outputs: Outputs): void {
  writeCiOutputs(qualificationOutcome(q, dir, stepWallMs), junitFile, outputs);
}
