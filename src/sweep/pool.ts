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
 */
export async function runJobs(jobs: PointJob[], parallel = availableParallelism(), onDone?: (index: number, result: PointResult) => void): Promise<PointResult[]> {
  const results: PointResult[] = new Array(jobs.length);
  if (parallel <= 1 || jobs.length <= 1) {
    for (let i = 0; i < jobs.length; i++) {
      results[i] = await runPoint(jobs[i]!);
      onDone?.(i, results[i]!);
    }
    return results;
  }
  const entry = workerModule('./worker.ts', import.meta.url);
  const workers = Array.from({ length: Math.min(parallel, jobs.length) }, (_, i) => new WorkerThread<Reply>(entry, `sweep worker ${i}`));
  let next = 0;
  try {
    await Promise.all(
      workers.map(async (worker) => {
        while (next < jobs.length) {
          const id = next++;
          results[id] = await ask(worker, id, jobs[id]!);
          onDone?.(id, results[id]!);
        }
      }),
    );
  } finally {
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
