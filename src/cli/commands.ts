import { parseDurationUs } from '../profile/units.ts';
import { loadProfile, profileJsonSchema } from '../profile/index.ts';
import { ProfileError } from '../profile/index.ts';
import { runProfile } from '../pipeline/run.ts';
import { renderPlan } from '../report/plan.ts';
import { createSchedule } from '../schedule/index.ts';
import { ExitCode } from './exit-codes.ts';

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
}

export async function runCommand(args: RunArgs): Promise<number> {
  const overrides = args.seed === undefined ? args.set : [...args.set, `seed=${args.seed}`];
  const profile = await loadProfile(args.profile, overrides);
  const intervalUs = parseDurationUs(args.interval);
  if (!intervalUs) throw new ProfileError('<command line>', [{ file: '<command line>', line: 0, column: 0, path: '--interval', message: `expected a duration, got "${args.interval}"`, hint: 'e.g. --interval 1s or 500ms' }]);
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const { result, summary, dir } = await runProfile(profile, { outDir: args.out, target: args.target, intervalUs, signal: abort.signal });
    process.stdout.write(args.quiet ? `${dir}\n` : `${summary}\nwritten to ${dir}/\n`);
    if (result.interrupted) return ExitCode.Interrupted;
    return result.slo.pass ? ExitCode.Ok : ExitCode.SloFailed;
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
