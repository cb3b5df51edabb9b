/**
 * Worker-thread entry of `stampede sweep`: runs the grid points the main thread sends, one at a
 * time, and posts each result back. Started through src/workers/thread.ts (which registers tsx in the thread when running from source).
 */
import { parentPort } from 'node:worker_threads';
import { runPoint, type PointJob } from './point.ts';

if (!parentPort) throw new Error('sweep worker: not in a worker thread');
const port = parentPort;
port.on('message', (message: { id: number; job: PointJob } | 'exit') => {
  if (message === 'exit') return port.close();
  runPoint(message.job).then(
    (result) => port.postMessage({ id: message.id, result }),
    (error: unknown) => port.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
