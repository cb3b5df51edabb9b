import type { Argv } from 'yargs';
import type { ArgsOf, StampedeCommand } from '../command.ts';
import { exitCodeOf } from '../exit-codes.ts';

const builder = (yargs: Argv) =>
  yargs
    .positional('baseline', { type: 'string', demandOption: true })
    .positional('candidate', { type: 'string', demandOption: true })
    .option('out', { type: 'string', describe: 'also write the Markdown here' });

export const compare: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'compare <baseline> <candidate>',
  describe: 'did latency, error rate or capacity regress beyond run-to-run noise? (exit 1 on a regression, 5 when a side is INVALID or interrupted: not comparable)',
  example: ['stampede compare reports/nightly/2026-01-01 reports/nightly/2026-01-02', 'did the second night regress? (exit 1 if so)'],
  builder,
  async run(args, _signal, outputs) {
    const [{ commandLineError }, { compareRuns }, { isRunDir, loadSnapshot }, { renderComparison }] = await Promise.all([
      import('../input.ts'),
      import('../../analysis/compare.ts'),
      import('../../run-folder/snapshot.ts'),
      import('../../report/compare-report.ts'),
    ]);
    for (const dir of [args.baseline, args.candidate]) {
      if (!isRunDir(dir)) throw commandLineError('<dir>', `no result.json or qualification.json in ${dir}`, 'compare two folders written by stampede run or stampede qualify');
    }
    const [baseline, candidate] = [loadSnapshot(args.baseline), loadSnapshot(args.candidate)];
    const comparison = compareRuns(baseline, candidate);
    const markdown = renderComparison(comparison);
    if (args.out) outputs.write(args.out, markdown);
    process.stdout.write(markdown);
    // Partial or INVALID figures would show a false regression (or hide a real one): not compared, and said so.
    return exitCodeOf(comparison);
  },
};
