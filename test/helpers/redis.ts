import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './targets.ts';

export interface RunningRedis {
  port: number;
  address: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts /usr/bin/redis-server (or REDIS_BIN) on 127.0.0.1 and a free port, persisting nothing; stop() kills that PID. */
export async function startRedis(): Promise<RunningRedis> {
  const port = await freePort();
  const bin = process.env.REDIS_BIN ?? 'redis-server';
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitForPort(port, 5000, () => child.exitCode !== null);
  } catch (error) {
    if (child.exitCode === null) process.kill(child.pid!, 'SIGTERM');
    await exited;
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

/** One command (inline form, arguments without spaces) and its raw RESP reply. */
export function redisCommand(port: number, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    let reply = '';
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(`${args.join(' ')}\r\n`));
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (!replyComplete(reply)) return;
      socket.end();
      resolve(reply);
    });
  });
}

/** A simple, error or integer reply ends at its line; a bulk string (INFO's) at its length. */
function replyComplete(reply: string): boolean {
  const line = reply.indexOf('\r\n');
  if (line < 0) return false;
  if (reply[0] !== '$') return true;
  const length = Number(reply.slice(1, line));
  return length < 0 || Buffer.byteLength(reply) >= line + 2 + length + 2;
}

/** INFO's fields, by name (`section` as INFO takes it: stats, commandstats, all). */
export async function redisInfo(port: number, section = 'all'): Promise<Map<string, string>> {
  const reply = await redisCommand(port, 'INFO', section);
  return new Map([...reply.matchAll(/^([a-z_0-9]+):(.*)\r$/gm)].map((m) => [m[1]!, m[2]!]));
}

/** The server's counts a run is checked against: keyspace hits and misses, and each command's calls (INFO commandstats). */
export async function redisCounts(port: number): Promise<{ hits: number; misses: number; calls: (command: string) => number }> {
  const info = await redisInfo(port);
  return {
    hits: Number(info.get('keyspace_hits')),
    misses: Number(info.get('keyspace_misses')),
    calls: (command) => Number(/calls=(\d+)/.exec(info.get(`cmdstat_${command}`) ?? '')?.[1] ?? 0),
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
    if (gone()) throw new Error('redis-server exited');
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
