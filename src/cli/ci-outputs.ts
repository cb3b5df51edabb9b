import { appendFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import type { RunAnalysis } from '../analysis/analyse-run.ts';
import type { Qualification } from '../analysis/qualification.ts';
import type { RunResult } from '../recorder/result.ts';
import { type CiOutcome, junitXml, qualificationOutcome, runOutcome, stepSummary } from '../report/ci.ts';
import { makeFolders } from '../run-folder/index.ts';
import { asWriteError } from '../run-folder/write-errors.ts';
import { commandLineError } from './input.ts';

/**
 * The outcome where CI reads it: JUnit XML at `--junit FILE` (its folder created), and a Markdown
 * block appended to the file $GITHUB_STEP_SUMMARY names, when that variable is set. Both are built
 * from the result and the analysis, which hold no secret (a `--set` that wrote one is [redacted]).
 */
export function writeCiOutputs(outcome: CiOutcome, junitFile: string | undefined, env: NodeJS.ProcessEnv = process.env): void {
  if (junitFile !== undefined) {
    try {
      makeFolders(dirname(junitFile));
      writeFileSync(junitFile, junitXml(outcome, hostname()));
    } catch (error) {
      // Written after the run: the run happened, its JUnit file is an output lost (exit 3), not bad input.
      throw asWriteError(junitFile, error);
    }
  }
  const summaryFile = env.GITHUB_STEP_SUMMARY;
  if (!summaryFile) return;
  try {
    appendFileSync(summaryFile, `${stepSummary(outcome)}\n`);
  } catch (error) {
    // A step summary CI cannot take is an output lost (exit 3), not a bug.
    throw asWriteError(summaryFile, error);
  }
}

/** A run's CI outputs (`stampede run`). */
export function writeRunCiOutputs(run: { result: RunResult; analysis: RunAnalysis; dir: string }, junitFile: string | undefined): void {
  writeCiOutputs(runOutcome(run.result, run.analysis, run.dir), junitFile);
}

/** A qualification's CI outputs (`stampede qualify`); `stepWallMs`: the wall time of each step. */
export function writeQualificationCiOutputs(q: Qualification, dir: string, junitFile: string | undefined, stepWallMs: readonly number[]): void {
  writeCiOutputs(qualificationOutcome(q, dir, stepWallMs), junitFile);
}
