import { fileURLToPath } from 'node:url';
import type { Outputs } from '../../run-folder/outputs.ts';
import type { TraceLayout } from '../../trace/columns.ts';
import { ExitCode, exitCodeOf } from '../exit-codes.ts';
import { allowedRemoteHosts, numberOption, optionError } from '../options.ts';

/*
 * `stampede trace replay <trace>`: every request of the trace's window sent at its time (scaled by
 * --speed), open loop, into an ordinary run folder. The trace is read twice, streamed: once for the
 * run's plan (its requests, kinds, clients and keys), once as the run sends it.
 */

export interface ReplayArgs {
  trace: string;
  target?: string | undefined;
  speed: string;
  window?: string | undefined;
  profile?: string | undefined;
  out?: string | undefined;
  interval: string;
  force: boolean;
  quiet: boolean;
  allowRemote?: string[] | undefined;
  maxMalformed: number;
}

/** The base a replay takes its SLO, settings and topology from when no --profile is given: the shipped look-aside cache. */
const DEFAULT_TOPOLOGY = fileURLToPath(new URL('../../../profiles/topologies/lookaside-cache.yaml', import.meta.url));
const defaultBase = () =>
  [
    'name: replay',
    'phases: [{ type: steady, rate: 1, duration: 1s }]',
    '# The model needs a topology: the shipped look-aside cache (profiles/topologies/lookaside-cache.yaml).',
    `topology: ${JSON.stringify(DEFAULT_TOPOLOGY)}`,
  ].join('\n');

const MAX_SPEED = 1_000_000;

export async function replayTrace(args: ReplayArgs, layout: TraceLayout, signal: AbortSignal, outputs: Outputs): Promise<number> {
  const speed = numberOption('--speed', args.speed, { above: 0, max: MAX_SPEED, example: '2' });
  const [input, { prepareReplay }, { InputFileError }, { loadProfile, parseProfileText }, { protocolOf }, { runProfile }, { verdictLine }] = await Promise.all([
    import('../input.ts'),
    import('../../trace/index.ts'),
    import('../../files/input-file.ts'),
    import('../../profile/load.ts'),
    import('../../profile/protocols/registry.ts'),
    import('../../pipeline/run.ts'),
    import('../../report/summary.ts'),
  ]);
  const window = windowOption(args.window, input.durationOption);
  const target = input.targetOption(args.target);
  const intervalUs = input.durationOption('--interval', args.interval);
  const replay = await prepareReplay(args.trace, layout, window, speed, { maxMalformedShare: args.maxMalformed, signal });
  if (replay === undefined) return ExitCode.Interrupted;
  const { scan, schedule, overrides } = replay;
  try {
    const profile = args.profile === undefined ? await parseProfileText(defaultBase(), args.trace, overrides) : await loadProfile(args.profile, overrides);
    const { target: sendTo, from } = input.effectiveTarget(target, profile);
    // The trace's keys are its own, not the profile's: a memcached target refuses one it cannot store, naming its line.
    if (protocolOf(sendTo).refusesUnfitKeys && scan.unfitKey !== undefined) throw new InputFileError(args.trace, scan.unfitKey.message);
    await input.checkRunnable(profile, sendTo);
    const remote = input.guardTarget(sendTo, allowedRemoteHosts(args.allowRemote, process.env.STAMPEDE_ALLOW_REMOTE), from);
    if (remote.length > 0) process.stderr.write(input.remoteNotice(remote));
    const { analysis, summary, dir } = await runProfile(profile, { schedule, outDir: args.out, target: sendTo, intervalUs, signal, force: args.force, outputs });
    process.stdout.write(args.quiet ? `${dir}\n` : `${summary}\nwritten to ${dir}/\n${verdictLine(analysis.verdict, analysis.reasons)}\n`);
    return exitCodeOf(analysis);
  } finally {
    schedule.close();
  }
}

/** `--window a..b`: seconds from the trace's first request (durations: 90, 1.5m, 10m..20m; either side may be left out). */
function windowOption(text: string | undefined, duration: (option: string, text: string, allowZero?: boolean) => number): { fromS: number; toS: number } {
  if (text === undefined) return { fromS: 0, toS: Number.POSITIVE_INFINITY };
  const split = text.indexOf('..');
  if (split < 0) throw optionError('--window', `expected from..to, got ${JSON.stringify(text)}`, 'e.g. --window 60s..120s: the trace’s second minute');
  const side = (part: string, otherwise: number) => (part.trim() === '' ? otherwise : duration('--window', part.trim(), true) / 1e6);
  const fromS = side(text.slice(0, split), 0);
  const toS = side(text.slice(split + 2), Number.POSITIVE_INFINITY);
  if (!(toS > fromS)) throw optionError('--window', `its end (${toS}s) is not after its start (${fromS}s)`, 'e.g. --window 60s..120s');
  return { fromS, toS };
}
