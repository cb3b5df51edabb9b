import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import type { ArgsOf, StampedeCommand } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';

const builder = (yargs: Argv) =>
  yargs
    .positional('qualify-dir', { type: 'string', demandOption: true, describe: 'a `stampede qualify` folder of the real service (stampede serve reference)' })
    .option('topology', { type: 'string', demandOption: true, describe: 'the model topology to calibrate: its structure is kept, its figures fitted' })
    .option('out', { type: 'string', describe: 'output folder (default reports/<profile>/calibrate-<UTC time>/)' })
    .option('memcached-run', { type: 'string', describe: 'a low-rate `stampede run` folder against memcached: the per-get time (default: the topology’s)' })
    .option('quiet', { type: 'boolean', default: false, describe: 'print only the output folder' });

/** `stampede calibrate`: fits the model to a real qualification and puts the two side by side. Exit 0 when the targets are met, 1 when not. */
export const calibrate: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'calibrate <qualify-dir>',
  describe: 'fit the model to a real qualification, qualify the calibrated model, and compare knee and p99 side by side',
  example: [
    'stampede calibrate reports/reference-calibration/qualify-2026-01-01T00-00-00Z --topology profiles/topologies/reference-service.yaml',
    'calibrate the reference service’s model and report where it disagrees',
  ],
  builder,
  async run(args, signal) {
    const [{ calibrate }, { CalibrationInputError }, { renderCalibrationTable }, { createNewRunDir, defaultRunDir, QUALIFICATION_FILE, readQualification }, { CommandLineError }] =
      await Promise.all([
        import('../../calibrate/calibrate.ts'),
        import('../../calibrate/errors.ts'),
        import('../../calibrate/report.ts'),
        import('../../run-folder/index.ts'),
        import('../errors.ts'),
      ]);
    // A qualification.json that is unreadable, not JSON or not a qualification is an InputFileError naming it (exit 2).
    const name = existsSync(join(args.qualifyDir, QUALIFICATION_FILE)) ? readQualification(args.qualifyDir).profile.name : undefined;
    if (typeof name !== 'string')
      throw new CommandLineError(`<qualify-dir>: no qualification.json naming its profile in ${args.qualifyDir} (give a folder written by stampede qualify)`);
    const out = args.out ?? createNewRunDir(defaultRunDir('reports', name, new Date(), 'calibrate-'));
    let result: Awaited<ReturnType<typeof calibrate>>;
    try {
      result = await calibrate({
        realDir: args.qualifyDir,
        topologyFile: args.topology,
        outDir: out,
        memcachedRunDir: args.memcachedRun,
        signal,
        onProgress: (line) => {
          if (!args.quiet) process.stderr.write(`${line}\n`);
        },
      });
    } catch (error) {
      if (error instanceof CalibrationInputError) throw new CommandLineError(`${error.message} (${error.hint})`);
      throw error;
    }
    if (result === undefined) return ExitCode.Interrupted;
    const verdict = result.verdict.met ? 'targets met' : 'targets NOT met';
    const lines = args.quiet ? [out] : [renderCalibrationTable(result), '', ...result.verdict.disagreements.map((d) => `- ${d}`), `written to ${out}/`, `calibration: ${verdict}`];
    process.stdout.write(`${lines.join('\n')}\n`);
    return result.verdict.met ? ExitCode.Ok : ExitCode.SloFailed;
  },
};
