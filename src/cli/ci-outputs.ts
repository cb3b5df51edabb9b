import { dirname } from 'node:path';
import type { RunAnalysis } from '../analysis/analyse-run.ts';
import type { Qualification } from '../analysis/qualification.ts';
import type { RunResult } from '../recorder/result.ts';
import { type CiOutcome, junitXml, qualificationOutcome, runOutcome, stepSummary } from '../report/ci.ts';
import { makeFolders, type Outputs } from '../run-folder/index.ts';
import { commandLineError } from './input.ts';

/**
 * The outcome where CI reads it: JUnit XML at `--junit FILE` (its folder created), and a Markdown
 * block appended to the file $GITHUB_STEP_SUMMARY names, when that variable is set. Both are built
 * from the result and the analysis, which hold no secret (a `--set` that wrote one is [redacted]),
 * and written through `outputs` (a full disk is a lost file, exit 3).
 */
export function writeCiOutputs(outcome: CiOutcome, junitFile: string | undefined, outputs: Outputs, env: NodeJS.ProcessEnv = process.env): void {
  if (junitFile !== undefined) {
    try {
      makeFolders(dirname(junitFile));
      outputs.write(junitFile, junitXml(outcome));
    } catch (error) {
      throw commandLineError('--junit', `cannot write ${junitFile}: ${(error as Error).message}`, 'a file path in a writable folder, e.g. --junit reports/junit.xml');
    }
  }
  const summaryFile = env.GITHUB_STEP_SUMMARY;
  if (summaryFile) outputs.append(summaryFile, `${stepSummary(outcome)}\n`);
}

/** A run's CI outputs (`stampede run`). */
export function writeRunCiOutputs(run: { result: RunResult; analysis: RunAnalysis; dir: string }, junitFile: string | undefined, outputs: Outputs): void {
  writeCiOutputs(runOutcome(run.result, run.analysis, run.dir), junitFile, outputs);
}

/** A qualification's CI outputs (`stampede qualify`). */
export function writeQualificationCiOutputs(q: Qualification, dir: string, junitFile: string | undefined, outputs: Outputs): void {
  writeCiOutputs(qualificationOutcome(q, dir), junitFile, outputs);
}
