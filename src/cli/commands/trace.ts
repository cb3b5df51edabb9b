import type { Argv } from 'yargs';
import type { ArgsOf, StampedeCommand } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';
import { optionError } from '../options.ts';

const builder = (yargs: Argv) =>
  yargs
    .positional('action', { choices: ['stats'] as const, demandOption: true, describe: 'stats: the trace’s statistics, in the published per-cluster table’s terms and over time' })
    .positional('trace', {
      type: 'string',
      demandOption: true,
      describe: 'a request trace: timestamp,key,key size,value size,client,operation,TTL per line; plain or zstd-compressed',
    })
    .option('out', { alias: 'o', type: 'string', default: 'trace-stats.json', describe: 'write the statistics here as JSON' })
    .option('json', { type: 'boolean', default: false, describe: 'print the JSON on stdout instead of the table' })
    .option('columns', {
      type: 'string',
      describe:
        'where the fields are in another CSV: field=column (1-based) or field=header name, e.g. timestamp=1,key=3,operation=2,valueSize=5 (fields: timestamp, key, keySize, valueSize, client, operation, ttl)',
    })
    .option('delimiter', { type: 'string', default: ',', describe: 'the field delimiter, one character (with --columns)' })
    .option('time-unit', { choices: ['s', 'ms', 'us', 'ns'] as const, default: 's' as const, describe: 'the unit of the timestamp column' })
    .option('max-malformed', { type: 'number', default: 0.001, describe: 'the share of lines that may be malformed (skipped and named) before the trace is refused' });

export const trace: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'trace <action> <trace>',
  describe: 'read a production request trace (the public cache-trace format, or any CSV with --columns): its statistics, streamed',
  example: ['stampede trace stats cluster52.0.zst --out cluster52-stats.json', 'the statistics of a zstd-compressed cache trace'],
  builder,
  async run(args, signal, outputs) {
    if (!(args.maxMalformed >= 0 && args.maxMalformed <= 1)) throw optionError('--max-malformed', `${args.maxMalformed} is not a share between 0 and 1`, 'e.g. 0.001');
    const { ColumnsError, layoutOf, renderTraceStats, traceStats } = await import('../../trace/index.ts');
    let layout: ReturnType<typeof layoutOf>;
    try {
      layout = layoutOf({ columns: args.columns, delimiter: args.delimiter, unit: args.timeUnit });
    } catch (error) {
      if (error instanceof ColumnsError) throw optionError(error.option, error.message);
      throw error;
    }
    const result = await traceStats(args.trace, layout, { maxMalformedShare: args.maxMalformed, signal });
    const saved = outputs.writeJson(args.out, result);
    process.stdout.write(args.json ? `${JSON.stringify(result, null, 2)}\n` : renderTraceStats(args.trace, result.read, result.stats));
    if (saved && !args.json) process.stderr.write(`stampede: wrote ${args.out}\n`);
    return ExitCode.Ok;
  },
};
