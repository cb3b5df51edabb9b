import { performance } from 'node:perf_hooks';
import { RunStartError } from './errors.ts';
import { untilEpoch } from './start-at.ts';
import { WHOLE } from '../schedule/segment.ts';
import type { RawGeneratorHealth } from './run-health.ts';
import type { Driver, RunContext } from './types.ts';
import { mergeTransportReports } from '../profile/protocols/registry.ts';
import type { DriverReport } from '../recorder/driver-report.ts';
import { decodeFromCompressedBase64, newHistogram } from '../recorder/histograms.ts';
import { IntervalMerger, mergeRecorderParts, type RecorderPart } from '../recorder/merge.ts';
import { RunRecorder } from '../recorder/run-recorder.ts';
import { WorkerThread, workerModule } from '../workers/thread.ts';
import { generatorFigures } from '../generator/health.ts';
import type { WorkerInput, WorkerInterval, WorkerOutput } from './worker-entry.ts';

/** Between the last worker's "ready" and the shared start: time for the start message to arrive. */
const START_DELAY_MS = 50;

/**
 * `--workers N` for a real target: N worker threads, each running the same seeded schedule and
 * sending only its slice of it (request seq mod N — k6's execution segments, deterministic: the
 * same run gives every worker the same requests). They share one start time, so intended times
 * line up across threads. Each records into its own RunRecorder, posts each interval as it closes
 * and ships its totals' histograms encoded at the end; the main thread merges them exactly into the
 * run's recorder.
 */
export function createWorkerDriver(target: string, workers: number, startAtEpochMs?: number): Driver {
  return { target, run: (context) => runWorkers(context, target, workers, startAtEpochMs) };
}

async function runWorkers(context: RunContext, target: string, count: number, sharedStartEpochMs: number | undefined): Promise<DriverReport> {
  const recorder = context.recorder;
  if (!(recorder instanceof RunRecorder)) throw new RunStartError('--workers needs the run recorder (merging encoded histograms)');
  const entry = workerModule('./worker-entry.ts', import.meta.url);
  const threads = Array.from({ length: count }, (_, index) => {
    const segment = context.schedule.segment ?? WHOLE;
    const workerData: WorkerInput = { profile: context.profile, target, index, count, segment, intervalUs: recorder.intervalUs };
    return new WorkerThread<'ready' | WorkerInterval | WorkerOutput>(entry, `worker ${index}`, workerData);
  });
  const abort = () => threads.forEach((t) => t.post('abort'));
  context.signal.addEventListener('abort', abort, { once: true });
  try {
    // Workers load their modules (tsx compiles them) at their own pace; the clock starts for all at once after.
    await fromAll(threads.map((t) => t.next((m) => m === 'ready')));
    // A start shared with other hosts (--start-at) is theirs too; otherwise the threads start together.
    const startAtEpochMs = sharedStartEpochMs !== undefined ? await untilEpoch(sharedStartEpochMs, context.signal) : performance.timeOrigin + performance.now() + START_DELAY_MS;
    for (const t of threads) t.post({ start: startAtEpochMs });
    const merger = new IntervalMerger(recorder, count);
    const outputs = await fromAll(threads.map((t, index) => collect(t, index, merger)));
    const report = mergeReports(outputs);
    // The threads' gauge specs reach this thread with their reports: live readers learn them now.
    context.declareGauges?.(report.gauges);
    mergeRecorderParts(
      recorder,
      outputs.map((o) => o.part),
    );
    return report;
  } finally {
    context.signal.removeEventListener('abort', abort);
    await Promise.all(threads.map((t) => t.terminate()));
  }
}

/** A worker's intervals as they close (merged into the run's as soon as every worker has sent them), then its output. */
async function collect(thread: WorkerThread<'ready' | WorkerInterval | WorkerOutput>, index: number, merger: IntervalMerger): Promise<WorkerOutput> {
  for (;;) {
    const message = await thread.next((m): m is WorkerInterval | WorkerOutput => m !== 'ready');
    if ('interval' in message) merger.add(index, message);
    else {
      merger.finish(index);
      return message;
    }
  }
}

/** Every worker's reply; a worker that failed or exited first makes the run one that could not start. */
function fromAll<T>(replies: Promise<T>[]): Promise<T[]> {
  return Promise.all(replies).catch((error: Error) => {
    throw new RunStartError(error.message);
  });
}

function mergeReports(outputs: WorkerOutput[]): DriverReport {
  const raws: RawGeneratorHealth[] = outputs.map((o) => o.health);
  const sendLateness = newHistogram();
  const dispatchLateness = newHistogram();
  for (const raw of raws) {
    sendLateness.add(decodeFromCompressedBase64(raw.sendLateness));
    dispatchLateness.add(decodeFromCompressedBase64(raw.dispatchLateness));
  }
  const first = outputs[0]!.report;
  const transports = outputs.flatMap((o) => (o.report.transport ? [o.report.transport] : []));
  return {
    elapsedUs: outputs.reduce((max, o) => Math.max(max, o.report.elapsedUs), 0),
    interrupted: outputs.some((o) => o.report.interrupted),
    loop: first.loop,
    gauges: [...new Map(outputs.flatMap((o) => o.report.gauges).map((g) => [g.name, g])).values()],
    ...(transports.length > 0 && { transport: mergeTransportReports(transports) }),
    ...(first.targetStats !== undefined && { targetStats: first.targetStats }),
    // Only schedule-applied steps (shift) run with several workers; the first thread's record stands for all.
    ...(first.timeline && { timeline: first.timeline }),
    generator: generatorFigures({
      snapshots: raws.map((r) => r.snapshot),
      sendLateness,
      dispatchLateness,
      dropped: raws.reduce((a, r) => a + r.dropped, 0),
      inFlightCap: raws.reduce((a, r) => a + r.inFlightCap, 0),
      waitedForConnection: raws.reduce((a, r) => a + r.waitedForConnection, 0),
    }),
  };
}

export type { RecorderPart };
