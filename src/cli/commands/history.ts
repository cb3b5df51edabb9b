import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import type { ArgsOf, StampedeCommand } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';

const builder = (yargs: Argv) =>
  yargs.positional('dir', { type: 'string', demandOption: true }).option('out', { type: 'string', describe: 'folder for history.md and history.html (default <dir>)' });

export const history: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'history <dir>',
  describe: 'trend tables and charts per profile (capacity and p99 per night) of a folder of runs (exit 1 when a profile’s latest night failed, is INVALID or regressed)',
  example: ['stampede history reports/nightly --out reports/nightly-trend', 'trend per profile; exit 1 if the latest night is not green'],
  builder,
  async run(args) {
    const [{ commandLineError }, { buildHistory }, { findSnapshotDirs, loadSnapshot }, { createRunDir, writeFileAtomic }, { renderHistory }] = await Promise.all([
      import('../input.ts'),
      import('../../analysis/history.ts'),
      import('../../run-folder/snapshot.ts'),
      import('../../run-folder/index.ts'),
      import('../../report/history-report.ts'),
    ]);
    const { dirs, skipped } = existsSync(args.dir) ? findSnapshotDirs(args.dir) : { dirs: [], skipped: [] };
    for (const { path, reason } of skipped) process.stderr.write(`stampede: history: skipped ${path}: ${reason}\n`);
    if (dirs.length === 0) throw commandLineError('<dir>', `no runs under ${args.dir}`, 'a folder of run or qualification folders, e.g. reports/nightly/');
    const trend = buildHistory(dirs.map(loadSnapshot));
    const { markdown, html } = renderHistory(trend);
    const out = args.out ?? args.dir;
    createRunDir(out);
    writeFileAtomic(join(out, 'history.md'), markdown);
    writeFileAtomic(join(out, 'history.html'), html);
    process.stdout.write(`${markdown}\nwritten to ${join(out, 'history.md')} and history.html\n`);
    // The latest night is what an unattended job acts on; older regressions stay in the tables.
    return trend.alarming ? ExitCode.SloFailed : ExitCode.Ok;
  },
};
