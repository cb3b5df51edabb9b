import { parseDurationUs } from '../profile/units.ts';
import { loadProfile, profileJsonSchema } from '../profile/index.ts';
import { ProfileError } from '../profile/index.ts';
import { runProfile } from '../pipeline/run.ts';
import { renderPlan } from '../report/plan.ts';
import { createSchedule } from '../schedule/index.ts';
import { withProductionSample } from './capacity-commands.ts';
import { ExitCode, exitCodeOf } from './exit-codes.ts';
import type { ServeArgs } from '../serve/command.ts';

interface ProfileArgs {
  profile: string;
  set: string[];
}

interface RunArgs extends ProfileArgs {
  out?: string;
  target?: string;
  seed?: number;
  interval: string;
  quiet: boolean;
  productionSample?: string;
  workers?: number;
}

export async function runCommand(args: RunArgs): Promise<number> {
  const overrides = args.seed === undefined ? args.set : [...args.set, `seed=${args.seed}`];
  const profile = withProductionSample(await loadProfile(args.profile, overrides), args.productionSample);
  const intervalUs = parseDurationUs(args.interval);
  if (!intervalUs) throw new ProfileError('<command line>', [{ file: '<command line>', line: 0, column: 0, path: '--interval', message: `expected a duration, got "${args.interval}"`, hint: 'e.g. --interval 1s or 500ms' }]);
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const { analysis, summary, dir } = await runProfile(profile, { outDir: args.out, target: args.target, intervalUs, signal: abort.signal, workers: args.workers });
    process.stdout.write(args.quiet ? `${dir}\n` : `${summary}\nwritten to ${dir}/\n${analysis.verdict}\n`);
    return exitCodeOf(analysis);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export async function validateCommand(args: ProfileArgs): Promise<number> {
  const profile = await loadProfile(args.profile, args.set);
  process.stdout.write(renderPlan(profile, createSchedule(profile).plan));
  return ExitCode.Ok;
}

export function schemaCommand(): number {
  process.stdout.write(JSON.stringify(profileJsonSchema(), null, 2) + '\n');
  return ExitCode.Ok;
}

/** `stampede serve reference`: runs the reference service until SIGINT/SIGTERM. */
export async function serveCommand(args: ServeArgs): Promise<number> {
  const { serveReference } = await import('../serve/command.ts');
  return serveReference(args);
}

interface SweepArgs extends ProfileArgs {
  vary: string[];
  steps: number;
  window?: string;
  parallel?: number;
  json: boolean;
}

/** `stampede sweep <profile> --vary path=a..b [--vary …]`: the model over a grid, recovered or not per point. */
export async function sweepCommand(args: SweepArgs): Promise<number> {
  const { sweep, renderSweep } = await import('../sweep/sweep.ts');
  let windowS: [number, number] | null = null;
  if (args.window !== undefined) {
    const [a, b] = args.window.split('..').map((t) => parseDurationUs(t.trim()));
    if (a === undefined || b === undefined || !(b > a)) {
      throw new ProfileError('<command line>', [{ file: '<command line>', line: 0, column: 0, path: '--window', message: `expected from..to, got "${args.window}"`, hint: 'e.g. --window 60s..90s' }]);
    }
    windowS = [a / 1e6, b / 1e6];
  }
  // Fail on a bad profile before starting workers.
  await loadProfile(args.profile, args.set);
  const result = await sweep({
    profilePath: args.profile,
    vary: args.vary,
    set: args.set,
    steps: args.steps,
    windowS,
    parallel: args.parallel,
    onPoint: process.stderr.isTTY ? (done, total) => process.stderr.write(`\r${done}/${total} points${done === total ? '\n' : ''}`) : undefined,
  });
  process.stdout.write(args.json ? JSON.stringify(result, null, 2) + '\n' : renderSweep(result));
  return ExitCode.Ok;
}
