import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './targets.ts';

export interface RunningMemcached {
  port: number;
  address: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts /usr/bin/memcached (or MEMCACHED_BIN) on 127.0.0.1 and a free port; stop() kills that PID. */
export async function startMemcached(options: { memoryMb?: number; connections?: number } = {}): Promise<RunningMemcached> {
  const port = await freePort();
  const bin = process.env.MEMCACHED_BIN ?? 'memcached';
  const args = ['-l', '127.0.0.1', '-p', String(port), '-U', '0', '-m', String(options.memoryMb ?? 64), '-c', String(options.connections ?? 1024), '-t', '1'];
  // memcached refuses to run as root without a user to drop to.
  if (process.getuid?.() === 0) args.push('-u', 'nobody');
  const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitForPort(port, 5000, () => child.exitCode !== null);
  } catch (error) {
    if (child.exitCode === null) process.kill(child.pid!, 'SIGTERM');
    throw new Error(`${(error as Error).message}: ${stderr.trim()}`);
  }
  return {
    port,
    address: `127.0.0.1:${port}`,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

async function waitForPort(port: number, timeoutMs: number, gone: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect({ host: '127.0.0.1', port }, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (gone()) throw new Error('memcached exited');
    if (Date.now() > deadline) throw new Error(`memcached did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
