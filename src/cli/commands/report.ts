import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import type { Qualification } from '../../analysis/qualification.ts';
import type { ArgsOf, StampedeCommand } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';

const builder = (yargs: Argv) => yargs.positional('dir', { type: 'string', demandOption: true }).option('print', { type: 'boolean', default: false, describe: 'print report.md' });

/** Re-renders report.md and report.html of a run or qualification folder from its stored artifacts. */
export const report: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'report <dir>',
  describe: 're-render report.md and report.html of a run or qualification folder, without traffic',
  example: ['stampede report reports/sudden-spike/2026-01-01T00-00-00Z', 're-render report.md and report.html without traffic'],
  builder,
  async run(args, _signal, outputs) {
    // The report renderers (and echarts under them) load only here, when a report is rendered.
    const [{ commandLineError }, { isRunDir }, { writeReports }, { rerenderRun }, { renderQualificationReports }] = await Promise.all([
      import('../input.ts'),
      import('../../run-folder/snapshot.ts'),
      import('../../run-folder/index.ts'),
      import('../../pipeline/run.ts'),
      import('../../report/qualification-report.ts'),
    ]);
    if (!isRunDir(args.dir))
      throw commandLineError('<run-dir>', `no result.json or qualification.json in ${args.dir}`, 'give a folder written by stampede run or stampede qualify');
    let markdown: string;
    try {
      const q = readQualification(join(args.dir, 'qualification.json'));
      if (q) {
        const reports = renderQualificationReports(q);
        writeReports(args.dir, reports, outputs);
        markdown = reports.markdown;
      } else {
        markdown = await rerenderRun(args.dir, outputs);
      }
    } catch (error) {
      if (error instanceof SyntaxError)
        throw commandLineError('<run-dir>', `unreadable artifacts in ${args.dir}: ${error.message}`, 'the folder holds a damaged result.json or qualification.json');
      throw error;
    }
    process.stdout.write(args.print ? markdown : `${join(args.dir, 'report.md')}\n${join(args.dir, 'report.html')}\n`);
    return ExitCode.Ok;
  },
};

function readQualification(file: string): Qualification | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Qualification;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
