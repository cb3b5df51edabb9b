import type { Argv } from 'yargs';
import { type ArgsOf, type StampedeCommand, junitOption } from '../command.ts';
import { CommandLineError } from '../errors.ts';
import { exitCodeOf } from '../exit-codes.ts';

const builder = (yargs: Argv) =>
  junitOption(
    yargs
      .positional('dirs', { type: 'string', array: true, demandOption: true, describe: 'the run folders of every segment (stampede run --segment i/N)' })
      .option('out', { type: 'string', demandOption: true, describe: 'folder for the merged run' })
      .option('quiet', { type: 'boolean', default: false, describe: 'print only the output folder' }),
  );

export const merge: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'merge <dirs..>',
  describe: 'merge the segments of one run (run --segment i/N on N hosts) into one run folder, judged as one run',
  example: ['stampede merge seg-0 seg-1 seg-2 --out reports/merged', 'add three segments’ histograms exactly and judge the whole run'],
  builder,
  async run(args, _signal, outputs) {
    const [{ mergeRuns, SegmentMergeError }, { verdictLine }, { writeRunCiOutputs }] = await Promise.all([
      import('../../merge/index.ts'),
      import('../../report/summary.ts'),
      import('../ci-outputs.ts'),
    ]);
    try {
      const { result, analysis, summary, dir } = await mergeRuns(args.dirs, { outDir: args.out, outputs });
      writeRunCiOutputs({ result, analysis, dir }, args.junit, outputs);
      process.stdout.write(args.quiet ? `${dir}\n` : `${summary}\nwritten to ${dir}/\n${verdictLine(analysis.verdict, analysis.reasons)}\n`);
      return exitCodeOf(analysis);
    } catch (error) {
      if (error instanceof SegmentMergeError) throw new CommandLineError(`merge: ${error.message}`);
      throw error;
    }
  },
};
