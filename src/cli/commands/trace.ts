import { basename, dirname, join } from 'node:path';
import type { Argv } from 'yargs';
import { allowRemoteOption, type ArgsOf, forceOption, type StampedeCommand } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';
import { optionError } from '../options.ts';

const builder = (yargs: Argv) =>
  forceOption(allowRemoteOption(yargs))
    .positional('action', {
      choices: ['stats', 'fit', 'replay'] as const,
      demandOption: true,
      describe:
        'stats: the trace’s statistics, in the published per-cluster table’s terms and over time; fit: a profile that reproduces them; replay: send its requests at their times, into a run folder',
    })
    .positional('trace', {
      type: 'string',
      demandOption: true,
      describe: 'a request trace: timestamp,key,key size,value size,client,operation,TTL per line; plain or zstd-compressed',
    })
    .option('out', {
      alias: 'o',
      type: 'string',
      describe: 'stats: the JSON file (default trace-stats.json); fit: the profile YAML to write (required); replay: the run folder (default reports/<name>/<UTC time>/)',
    })
    .option('json', { type: 'boolean', default: false, describe: 'stats: print the JSON on stdout instead of the table' })
    .option('columns', {
      type: 'string',
      describe:
        'where the fields are in another CSV: field=column (1-based) or field=header name, e.g. timestamp=1,key=3,operation=2,valueSize=5 (fields: timestamp, key, keySize, valueSize, client, operation, ttl)',
    })
    .option('delimiter', { type: 'string', default: ',', describe: 'the field delimiter, one character (with --columns)' })
    .option('time-unit', { choices: ['s', 'ms', 'us', 'ns'] as const, default: 's' as const, describe: 'the unit of the timestamp column' })
    .option('max-malformed', { type: 'number', default: 0.001, describe: 'the share of lines that may be malformed (skipped and named) before the trace is refused' })
    .option('target', { type: 'string', describe: 'replay: where the requests go, memcached://host:port[,…] or model (default: the --profile’s target, else model)' })
    .option('speed', { type: 'string', default: '1', describe: 'replay: the pace, as a multiple of the trace’s (2: twice as fast, every gap halved)' })
    .option('window', { type: 'string', describe: 'replay: only the requests from..to after the trace’s first, e.g. 60s..120s (either side may be left out)' })
    .option('profile', {
      type: 'string',
      describe: 'replay: the profile whose slo, memcached settings, limits and topology the run takes (default: the look-aside cache topology)',
    })
    .option('interval', { type: 'string', default: '1s', describe: 'replay: interval of the per-interval histograms and gauges' })
    .option('quiet', { type: 'boolean', default: false, describe: 'replay: print only the run folder' });

/** Options that belong to one action only: given to another, they are refused rather than ignored. */
const REPLAY_ONLY = ['target', 'window', 'profile', 'allowRemote', 'force'] as const;

export const trace: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'trace <action> <trace>',
  describe: 'read a production request trace (the public cache-trace format, or any CSV with --columns), streamed: its statistics, or a profile fitted to it',
  example: ['stampede trace replay cluster52.0.zst --target memcached://127.0.0.1:11211 --window 0..60s', 'the trace’s first minute, sent to memcached at its own pace'],
  builder,
  async run(args, signal, outputs) {
    if (!(args.maxMalformed >= 0 && args.maxMalformed <= 1)) throw optionError('--max-malformed', `${args.maxMalformed} is not a share between 0 and 1`, 'e.g. 0.001');
    const { ColumnsError, layoutOf, renderTraceStats, traceFit, traceStats } = await import('../../trace/index.ts');
    let layout: ReturnType<typeof layoutOf>;
    try {
      layout = layoutOf({ columns: args.columns, delimiter: args.delimiter, unit: args.timeUnit });
    } catch (error) {
      if (error instanceof ColumnsError) throw optionError(error.option, error.message);
      throw error;
    }
    if (args.action === 'replay') {
      if (args.json) throw optionError('--json', 'applies to trace stats');
      const { replayTrace } = await import('./trace-replay.ts');
      return replayTrace(args, layout, signal, outputs);
    }
    for (const option of REPLAY_ONLY) if (args[option] !== undefined && args[option] !== false) throw optionError(`--${dashed(option)}`, 'applies to trace replay');
    const read = { maxMalformedShare: args.maxMalformed, signal };
    if (args.action === 'fit') {
      if (args.out === undefined) throw optionError('--out', 'trace fit needs the profile file to write', 'e.g. --out profiles/my-cluster.yaml');
      if (args.json) throw optionError('--json', 'applies to trace stats');
      const keysFile = `${basename(args.out).replace(/\.ya?ml$/, '')}.keys.csv`;
      const fit = await traceFit(args.trace, layout, read, keysFile);
      if (fit.read.interrupted) return ExitCode.Ok;
      const saved = outputs.write(args.out, fit.yaml) && (fit.keysCsv === undefined || outputs.write(join(dirname(args.out), keysFile), fit.keysCsv));
      await checkFitted(args.out, saved);
      process.stdout.write(`${renderTraceStats(args.trace, fit.read, fit.stats)}${fit.notes.map((n) => `  fit: ${n}\n`).join('')}`);
      if (saved) process.stderr.write(`stampede: wrote ${args.out}${fit.keysCsv === undefined ? '' : ` and ${keysFile}`} (stampede run ${args.out})\n`);
      return ExitCode.Ok;
    }
    const out = args.out ?? 'trace-stats.json';
    const result = await traceStats(args.trace, layout, read);
    const saved = outputs.writeJson(out, result);
    process.stdout.write(args.json ? `${JSON.stringify(result, null, 2)}\n` : renderTraceStats(args.trace, result.read, result.stats));
    if (saved && !args.json) process.stderr.write(`stampede: wrote ${out}\n`);
    return ExitCode.Ok;
  },
};

const dashed = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** A fitted profile that does not load is stampede's bug, not the user's input: said as such (exit 70). */
async function checkFitted(file: string, saved: boolean): Promise<void> {
  if (!saved) return;
  const { loadProfile } = await import('../../profile/load.ts');
  try {
    await loadProfile(file);
  } catch (error) {
    throw new Error(`the fitted profile ${file} does not load: ${(error as Error).message}`);
  }
}
