import { availableParallelism } from 'node:os';
import { WorkerThread, workerModule } from '../workers/thread.ts';
import { runPoint, type PointJob, type PointResult } from './point.ts';

/** What the sweep worker (worker.ts) answers to job `id`. */
interface Reply {
  id: number;
  result?: PointResult;
  error?: string;
}

/**
 * Runs jobs on `parallel` worker threads (each a separate V8 isolate, so model runs are truly in
 * parallel), in order of submission, and returns results in job order. `parallel` 1 runs them in
 * this thread — no worker, same results (every point is a pure function of profile and seed).
 * When `signal` aborts, no job starts, the workers are stopped, and the jobs not done stay undefined.
 */
export async function runJobs(
  jobs: PointJob[],
  parallel = availableParallelism(),
  onDone?: (index: number, result: PointResult) => void,
  signal: AbortSignal = new AbortController().signal,
): Promise<(PointResult | undefined)[]> {
  const results: (PointResult | undefined)[] = new Array(jobs.length).fill(undefined);
  if (parallel <= 1 || jobs.length <= 1) {
    for (let i = 0; i < jobs.length && !signal.aborted; i++) {
      const result = await runPoint(jobs[i]!, signal);
      if (result === undefined) break;
      results[i] = result;
      onDone?.(i, result);
    }
    return results;
  }
  const entry = workerModule('./worker.ts', import.meta.url);
  const workers = Array.from({ length: Math.min(parallel, jobs.length) }, (_, i) => new WorkerThread<Reply>(entry, `sweep worker ${i}`));
  let next = 0;
  // Terminating a worker fails its pending wait: that is how an abort ends the points in flight.
  const stop = () => void Promise.all(workers.map((w) => w.terminate()));
  signal.addEventListener('abort', stop, { once: true });
  try {
    await Promise.all(
      workers.map(async (worker) => {
        while (next < jobs.length && !signal.aborted) {
          const id = next++;
          const result = await ask(worker, id, jobs[id]!).catch((error: unknown) => {
            if (signal.aborted) return undefined;
            throw error;
          });
          if (result === undefined) return;
          results[id] = result;
          onDone?.(id, result);
        }
      }),
    );
  } finally {
    signal.removeEventListener('abort', stop);
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}

async function ask(worker: WorkerThread<Reply>, id: number, job: PointJob): Promise<PointResult> {
  worker.post({ id, job });
  const reply = await worker.next((r) => r.id === id);
  if (reply.error !== undefined) throw new Error(reply.error);
  return reply.result!;
}
