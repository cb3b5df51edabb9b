import { describe, expect, it } from 'vitest';
import { WorkerThread, workerModule } from '../../src/workers/thread.ts';

interface Reply {
  id: number;
  data: unknown;
}

const echo = workerModule('../fixtures/workers/echo.ts', import.meta.url);

describe('workerModule', () => {
  it.each([
    { base: 'file:///app/src/driver/workers.ts', module: 'file:///app/src/driver/worker-entry.ts' },
    { base: 'file:///app/dist/driver/workers.js', module: 'file:///app/dist/driver/worker-entry.js' },
  ])('from $base: $module', ({ base, module }) => {
    expect(workerModule('./worker-entry.ts', base).href).toBe(module);
  });
});

describe('WorkerThread (a real worker thread running TypeScript through tsx)', () => {
  it('passes workerData, and hands each reply to the wait that takes it, in whatever order they are awaited', async () => {
    const thread = new WorkerThread<Reply>(echo, 'echo', { seed: 42 });
    try {
      thread.post({ id: 1, do: 'echo' });
      thread.post({ id: 2, do: 'echo' });
      const second = await thread.next((r) => r.id === 2);
      const first = await thread.next((r) => r.id === 1);
      expect([first, second]).toEqual([
        { id: 1, data: { seed: 42 } },
        { id: 2, data: { seed: 42 } },
      ]);
    } finally {
      await thread.terminate();
    }
  });

  it.each([
    { how: 'throws', request: 'throw', error: 'echo: asked to fail on 7' },
    { how: 'exits', request: 'exit', error: 'echo exited (3) before replying' },
  ])('a thread that $how fails the waits pending on it, and later ones', async ({ request, error }) => {
    const thread = new WorkerThread<Reply>(echo, 'echo');
    try {
      const pending = thread.next((r) => r.id === 7);
      thread.post({ id: 7, do: request });
      await expect(pending).rejects.toThrow(error);
      await expect(thread.next(() => true)).rejects.toThrow(error);
    } finally {
      await thread.terminate();
    }
  });

  it('terminate rejects the waits still pending', async () => {
    const thread = new WorkerThread<Reply>(echo, 'echo');
    const pending = thread.next(() => true);
    thread.post({ id: 1, do: 'hang' });
    await thread.terminate();
    await expect(pending).rejects.toThrow('echo was terminated');
  });
});
