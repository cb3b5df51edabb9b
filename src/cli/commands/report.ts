import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import type { ArgsOf, StampedeCommand } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';

const builder = (yargs: Argv) => yargs.positional('dir', { type: 'string', demandOption: true }).option('print', { type: 'boolean', default: false, describe: 'print report.md' });

/** Re-renders report.md and report.html of a run or qualification folder from its stored artifacts. */
export const report: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'report <dir>',
  describe: 're-render report.md and report.html of a run or qualification folder, without traffic',
  example: ['stampede report reports/sudden-spike/2026-01-01T00-00-00Z', 're-render report.md and report.html without traffic'],
  builder,
  async run(args) {
    // The report renderers (and echarts under them) load only here, when a report is rendered.
    const [{ commandLineError }, { isRunDir }, { QUALIFICATION_FILE, readQualification, writeReports }, { rerenderRun }, { renderQualificationReports }] = await Promise.all([
      import('../input.ts'),
      import('../../run-folder/snapshot.ts'),
      import('../../run-folder/index.ts'),
      import('../../pipeline/run.ts'),
      import('../../report/qualification-report.ts'),
    ]);
    if (!isRunDir(args.dir))
      throw commandLineError('<run-dir>', `no result.json or qualification.json in ${args.dir}`, 'give a folder written by stampede run or stampede qualify');
    // A file of the folder that is unreadable, not JSON or not stampede's is an InputFileError naming it (exit 2).
    let markdown: string;
    if (existsSync(join(args.dir, QUALIFICATION_FILE))) {
      const reports = renderQualificationReports(readQualification(args.dir));
      writeReports(args.dir, reports);
      markdown = reports.markdown;
    } else {
      markdown = await rerenderRun(args.dir);
    }
    process.stdout.write(args.print ? markdown : `${join(args.dir, 'report.md')}\n${join(args.dir, 'report.html')}\n`);
    return ExitCode.Ok;
  },
};
