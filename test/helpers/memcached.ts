import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './targets.ts';

export interface RunningMemcached {
  port: number;
  address: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts /usr/bin/memcached (or MEMCACHED_BIN) on 127.0.0.1 and a free port; stop() kills that PID.
 * `cpu` caps its CPU (a cgroup of its own: `share` of one core per `periodUs`), an artificial
 * capacity that a busy machine cannot move (see cpuCgroupRoot).
 */
export async function startMemcached(options: { memoryMb?: number; connections?: number; cpu?: { share: number; periodUs: number } } = {}): Promise<RunningMemcached> {
  const port = await freePort();
  const bin = process.env.MEMCACHED_BIN ?? 'memcached';
  const args = ['-l', '127.0.0.1', '-p', String(port), '-U', '0', '-m', String(options.memoryMb ?? 64), '-c', String(options.connections ?? 1024), '-t', '1'];
  // memcached refuses to run as root without a user to drop to.
  if (process.getuid?.() === 0) args.push('-u', 'nobody');
  const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let cgroup: string | undefined;
  try {
    if (options.cpu) cgroup = capCpu(child.pid!, `stampede-memcached-${port}`, options.cpu);
    await waitForPort(port, 5000, () => child.exitCode !== null);
  } catch (error) {
    if (child.exitCode === null) process.kill(child.pid!, 'SIGTERM');
    await exited;
    if (cgroup) removeCgroup(cgroup);
    throw new Error(`${(error as Error).message}: ${stderr.trim()}`);
  }
  return {
    port,
    address: `127.0.0.1:${port}`,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
      await exited;
      if (cgroup) removeCgroup(cgroup);
    },
  };
}

/**
 * Where a CPU cgroup can be made, or undefined: cgroup v2 with the cpu controller (cpu.max), or
 * the v1 cpu hierarchy (cfs_quota_us) — and writable (root, not a read-only container mount).
 */
export function cpuCgroupRoot(): { path: string; version: 1 | 2 } | undefined {
  const v2 = '/sys/fs/cgroup';
  const candidates: { path: string; version: 1 | 2 }[] = [
    ...(existsSync(join(v2, 'cgroup.controllers')) && readFileSync(join(v2, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu') ? [{ path: v2, version: 2 as const }] : []),
    ...(existsSync('/sys/fs/cgroup/cpu/cpu.cfs_quota_us') ? [{ path: '/sys/fs/cgroup/cpu', version: 1 as const }] : []),
  ];
  for (const root of candidates) {
    const probe = join(root.path, `stampede-probe-${process.pid}`);
    try {
      mkdirSync(probe);
      rmdirSync(probe);
      return root;
    } catch {
      // not writable here: try the next
    }
  }
  return undefined;
}

/** Moves `pid` into a new cgroup `name` capped at `share` of a core per `periodUs`; returns the cgroup's folder. */
function capCpu(pid: number, name: string, cpu: { share: number; periodUs: number }): string {
  const root = cpuCgroupRoot();
  if (!root) throw new Error('no writable CPU cgroup (cgroup v2 cpu controller or v1 cpu hierarchy) to cap memcached');
  const dir = join(root.path, name);
  mkdirSync(dir);
  const quotaUs = Math.round(cpu.share * cpu.periodUs);
  if (root.version === 2) writeFileSync(join(dir, 'cpu.max'), `${quotaUs} ${cpu.periodUs}`);
  else {
    writeFileSync(join(dir, 'cpu.cfs_period_us'), String(cpu.periodUs));
    writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quotaUs));
  }
  writeFileSync(join(dir, 'cgroup.procs'), String(pid));
  return dir;
}

/** Removes an emptied cgroup: its last process may take a moment to leave after exiting. */
function removeCgroup(dir: string): void {
  for (let attempt = 0; ; attempt++) {
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      if (attempt >= 50) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

/** memcached's own counters (`stats`), by name. */
export function memcachedStats(port: number): Promise<Map<string, number>> {
  return new Promise((resolve, reject) => {
    let reply = '';
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write('stats\r\n'));
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (!reply.includes('END\r\n')) return;
      socket.end();
      resolve(new Map([...reply.matchAll(/^STAT (\S+) (\S+)\r$/gm)].map((m) => [m[1]!, Number(m[2])])));
    });
  });
}

/** memcached's own CPU time so far (rusage user + system, seconds) and the keys it was asked to get: from its `stats`. */
export async function memcachedUsage(port: number): Promise<{ cpuS: number; keysGot: number }> {
  const stats = await memcachedStats(port);
  return { cpuS: stats.get('rusage_user')! + stats.get('rusage_system')!, keysGot: stats.get('cmd_get')! };
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
