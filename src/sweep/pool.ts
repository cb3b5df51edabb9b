import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { runPoint, type PointJob, type PointResult } from './point.ts';

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
  const workers = Array.from({ length: Math.min(parallel, jobs.length) }, () => spawn());
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

function spawn(): Worker {
  // The CLI runs TypeScript through tsx; a small .js entry registers the same loader in the worker.
  return new Worker(new URL('./worker-entry.js', import.meta.url));
}

function ask(worker: Worker, id: number, job: PointJob): Promise<PointResult> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { id: number; result?: PointResult; error?: string }) => {
      if (message.id !== id) return;
      worker.off('message', onMessage);
      worker.off('error', onError);
      if (message.error !== undefined) reject(new Error(message.error));
      else resolve(message.result!);
    };
    const onError = (error: Error) => {
      worker.off('message', onMessage);
      reject(error);
    };
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.postMessage({ id, job });
  });
}
