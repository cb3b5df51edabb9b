import type { Argv } from 'yargs';
import { allowRemoteOption, type ArgsOf, csvOption, type StampedeCommand, forceOption, junitOption, liveOptions, productionSampleOption, profileOptions } from '../command.ts';
import { barrierStart } from '../barrier.ts';
import { ExitCode, exitCodeOf } from '../exit-codes.ts';
import { allowedRemoteHosts, numberOption, optionalNumberOption, optionError } from '../options.ts';
import { BARRIER_DEFAULTS, START_AT_TOLERANCE_MS, barrierOption, segmentOption, startAtOption } from '../segment-options.ts';

const builder = (yargs: Argv) =>
  csvOption(forceOption(junitOption(liveOptions(allowRemoteOption(productionSampleOption(profileOptions(yargs)))))))
    .option('out', { type: 'string', describe: 'output folder (default reports/<profile>/<UTC time>/)' })
    .option('target', { type: 'string', describe: 'where the traffic goes (default: the profile’s target, "model")' })
    .option('seed', { type: 'string', describe: 'shorthand for --set seed=N' })
    .option('interval', { type: 'string', default: '1s', describe: 'interval of the per-interval histograms and gauges' })
    .option('quiet', { type: 'boolean', default: false, describe: 'print only the output folder' })
    .option('allow-exec', { type: 'boolean', default: false, describe: 'let the timeline’s exec events run their commands (printed before the run starts)' })
    .option('workers', { type: 'string', describe: `real targets: send from N worker threads (1–${MAX_WORKERS}), each a disjoint slice of the schedule` })
    .option('segment', {
      type: 'string',
      describe: 'i/N: send only segment i (0-based) of N disjoint slices of the schedule, one per host; index/N reads JOB_COMPLETION_INDEX (stampede merge joins them)',
    })
    .option('start-at', { type: 'string', describe: 'UTC time (ISO 8601) the run starts at, shared by every segment: waits until then' })
    .option('barrier', {
      type: 'string',
      describe: 'DIR every segment shares: register there and start when all N segments have (instead of --start-at; stampede k8s uses it)',
    })
    .option('barrier-timeout', {
      type: 'string',
      describe: `how long to wait at the barrier for the other segments (default ${BARRIER_DEFAULTS.timeout}); then none starts: exit 3`,
    })
    .option('barrier-lead', { type: 'string', describe: `the shared start, this long after the last segment arrived (default ${BARRIER_DEFAULTS.lead})` });

/** More sending threads than this only adds contention on any machine stampede runs on. */
const MAX_WORKERS = 64;

export const run: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'run <profile>',
  describe: 'run a profile and write reports/<profile>/<time>/',
  example: ['stampede run profiles/sudden-spike.yaml --seed 7 --junit reports/junit.xml', 'run a profile on the model; JUnit XML for CI'],
  builder,
  async run(args, signal, outputs) {
    const [input, { protocolOf }, { runProfile }, { startLiveView }, { verdictLine }, { writeRunCiOutputs }, { BarrierInterrupted }] = await Promise.all([
      import('../input.ts'),
      import('../../profile/protocols/registry.ts'),
      import('../../pipeline/run.ts'),
      import('../live.ts'),
      import('../../report/summary.ts'),
      import('../ci-outputs.ts'),
      import('../../barrier/errors.ts'),
    ]);
    const target = input.targetOption(args.target);
    const seed = optionalNumberOption('--seed', args.seed, { min: 0, max: Number.MAX_SAFE_INTEGER, integer: true, example: '42' });
    if (seed !== undefined && args.set.some((s) => s.split('=')[0]!.trim() === 'seed'))
      throw optionError('--seed', 'conflicts with --set seed=…', 'give the seed once: --seed N or --set seed=N');
    const workers = args.workers === undefined ? undefined : numberOption('--workers', args.workers, { min: 1, max: MAX_WORKERS, integer: true, example: '2' });
    const intervalUs = input.durationOption('--interval', args.interval);
    const segment = args.segment === undefined ? undefined : segmentOption(args.segment, process.env);
    const startAtMs = args.startAt === undefined ? undefined : startAtOption(args.startAt, Date.now());
    const barrier = barrierOption(
      { dir: args.barrier, timeout: args.barrierTimeout, lead: args.barrierLead },
      { segment, startAtGiven: startAtMs !== undefined },
      input.durationOption,
    );
    const overrides = seed === undefined ? args.set : [...args.set, `seed=${seed}`];
    const profile = await input.loadProfileWithSample(args.profile, overrides, args.productionSample);
    const { target: sendTo, from } = input.effectiveTarget(target, profile);
    await input.checkRunnable(profile, sendTo);
    const simulated = protocolOf(sendTo).simulated;
    if (workers !== undefined && workers > 1 && simulated)
      throw optionError('--workers', 'applies to real targets; the model runs in virtual time on one thread', 'drop --workers, or give --target');
    const remote = input.guardTarget(sendTo, allowedRemoteHosts(args.allowRemote, process.env.STAMPEDE_ALLOW_REMOTE), from);
    if (remote.length > 0) process.stderr.write(input.remoteNotice(remote));
    if (startAtMs !== undefined && startAtMs > Date.now()) process.stderr.write(`stampede: waiting for the shared start at ${new Date(startAtMs).toISOString()}\n`);
    const live = await startLiveView(args);
    try {
      const { result, analysis, summary, dir } = await runProfile(profile, {
        outDir: args.out,
        target: sendTo,
        intervalUs,
        signal,
        workers,
        segment,
        startAtMs,
        awaitStart: barrier && barrierStart(barrier, START_AT_TOLERANCE_MS),
        force: args.force,
        env: process.env,
        allowExec: args.allowExec,
        // What a real run will do to the target (and which commands it runs) is shown before it starts; the model's is in its report.
        onTimeline: simulated ? undefined : (lines) => process.stderr.write(`timeline on ${sendTo.text}:\n${lines.join('\n')}\n`),
        onInterval: live.observer(),
        outputs,
      });
      live.progress.end();
      writeRunCiOutputs({ result, analysis, dir }, args.junit, outputs);
      if (args.csv) {
        const { writeCsvExports } = await import('../csv-outputs.ts');
        await writeCsvExports(dir, outputs);
      }
      process.stdout.write(args.quiet ? `${dir}\n` : `${summary}\nwritten to ${dir}/\n${verdictLine(analysis.verdict, analysis.reasons)}\n`);
      return await live.finish(exitCodeOf(analysis));
    } catch (error) {
      if (!(error instanceof BarrierInterrupted)) throw error;
      process.stderr.write(`stampede: ${error.message}\n`);
      // main.ts turns it into 130 or 143, as the signal was.
      return ExitCode.Interrupted;
    } finally {
      await live.close();
    }
  },
};
