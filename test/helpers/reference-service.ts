import { spawn, type ChildProcess } from 'node:child_process';
import { repoRoot } from './cli.ts';

export interface RunningReference {
  url: string;
  pid: number;
  /** SIGTERM to its PID; resolves with its exit code. */
  stop(): Promise<number | null>;
}

/** `stampede serve reference` as a child process on a free 127.0.0.1 port over `memcached` (host:port); resolves once it prints its URL. */
export async function startReferenceService(memcached: string, extra: string[] = []): Promise<RunningReference> {
  const child: ChildProcess = spawn(process.execPath, ['scripts/stampede-dev.js', 'serve', 'reference', '--port', '0', '--memcached', memcached, ...extra], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      process.kill(child.pid!, 'SIGTERM');
      reject(new Error(`serve reference did not start: ${out}`));
    }, 15_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  });
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
      return exited;
    },
  };
}
