import { parentPort, workerData } from 'node:worker_threads';
import { createDriver } from './index.ts';
import type { RawGeneratorHealth } from './run-health.ts';
import type { DriverReport } from '../recorder/driver-report.ts';
import type { Profile } from '../profile/types.ts';
import { parseTarget } from '../profile/protocols/registry.ts';
import { exportRecorderPart, type IntervalPart, type RecorderPart } from '../recorder/merge.ts';
import { RunRecorder } from '../recorder/run-recorder.ts';
import { createSchedule } from '../schedule/index.ts';
import { segmentSchedule, subSegment, type Segment } from '../schedule/segment.ts';

/** What the main thread gives a worker. */
export interface WorkerInput {
  profile: Profile;
  target: string;
  index: number;
  count: number;
  /** The run's own segment of the schedule (`--segment`); the workers split it further. */
  segment: Segment;
  intervalUs: number;
}

/** What a worker sends as each interval closes, so neither thread holds the run's intervals. */
export type WorkerInterval = IntervalPart;

/** What a worker sends back, once, at the end. */
export interface WorkerOutput {
  part: RecorderPart;
  report: DriverReport;
  health: RawGeneratorHealth;
}

/*
 * One worker thread of a `--workers N` run: the whole seeded schedule, its slice sent, recorded
 * into its own RunRecorder, each interval posted as it closes and the totals shipped encoded when done. "abort" from the
 * main thread stops it like Ctrl-C stops a single-thread run.
 */
if (parentPort) {
  const input = workerData as WorkerInput;
  const port = parentPort;
  const abort = new AbortController();
  let start!: (atEpochMs: number) => void;
  const started = new Promise<number>((resolve) => (start = resolve));
  port.on('message', (message: 'abort' | { start: number }) => {
    if (message === 'abort') abort.abort();
    else start(message.start);
  });
  // The whole seeded schedule, of which this thread sends its slice: thread w of W inside the run's segment.
  const schedule = segmentSchedule(createSchedule(input.profile), subSegment(input.segment, { index: input.index, count: input.count }));
  const recorder = new RunRecorder(schedule.plan, {
    intervalUs: input.intervalUs,
    onInterval: (interval, _latency, histograms) => port.postMessage({ interval, histograms: histograms.encode() } satisfies WorkerInterval),
  });
  let health: RawGeneratorHealth | undefined;
  // A target crosses to the thread as its text (a parsed one holds a URL, which does not clone).
  const driver = createDriver(parseTarget(input.target), {
    // Connected and loaded: tell the main thread, then wait for the shared start.
    awaitStart: () => {
      port.postMessage('ready');
      return started;
    },
    pollTargetStats: input.index === 0,
    exportHealth: (raw) => (health = raw),
  });
  const report = await driver.run({ profile: input.profile, schedule, recorder, signal: abort.signal });
  recorder.flush();
  const output: WorkerOutput = { part: exportRecorderPart(recorder), report, health: health! };
  port.postMessage(output);
  port.close();
}
