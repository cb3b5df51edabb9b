import { join } from 'node:path';
import type { Argv } from 'yargs';
import type { ArgsOf, StampedeCommand } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';

const builder = (yargs: Argv) =>
  yargs.positional('dir', { type: 'string', demandOption: true }).option('out', { type: 'string', describe: 'folder for history.md and history.html (default <dir>)' });

export const history: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'history <dir>',
  describe: 'trend table and charts (capacity and p99 per night) of a folder of runs',
  builder,
  async run(args) {
    const [{ commandLineError }, { findSnapshotDirs, loadSnapshot }, { writeFileAtomic }, { renderHistory }] = await Promise.all([
      import('../input.ts'),
      import('../../run-folder/snapshot.ts'),
      import('../../run-folder/index.ts'),
      import('../../report/history-report.ts'),
    ]);
    const dirs = findSnapshotDirs(args.dir);
    if (dirs.length === 0) throw commandLineError('<dir>', `no runs under ${args.dir}`, 'a folder of run or qualification folders, e.g. reports/nightly/');
    const { markdown, html } = renderHistory(dirs.map(loadSnapshot));
    const out = args.out ?? args.dir;
    writeFileAtomic(join(out, 'history.md'), markdown);
    writeFileAtomic(join(out, 'history.html'), html);
    process.stdout.write(`${markdown}\nwritten to ${join(out, 'history.md')} and history.html\n`);
    return ExitCode.Ok;
  },
};
