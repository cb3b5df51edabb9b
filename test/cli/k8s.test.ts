import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { ConfigMap, Container, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { RunResult } from '../../src/recorder/result.ts';
import { repoRoot, stampede, stampedeAsync } from '../helpers/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-k8s-'));
// The type check resolves kubernetes-types from the repository's node_modules: its file lives inside the repository.
const typecheckDir = join(repoRoot, 'test', `.k8s-typecheck-${process.pid}`);
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(typecheckDir, { recursive: true, force: true });
});

/** Long enough for the three emulated pods (CLI processes compiled by tsx) to start on a busy machine. */
const START_IN = '30s';

interface Manifest {
  configMap: ConfigMap;
  claim: PersistentVolumeClaim;
  job: Job;
}

/** Type-checks `source` with the repository's TypeScript against kubernetes-types; returns tsc's output and status. */
function typecheck(name: string, source: string): { status: number | null; output: string } {
  mkdirSync(typecheckDir, { recursive: true });
  const file = join(typecheckDir, name);
  writeFileSync(file, source);
  const tsc = spawnSync(
    join(repoRoot, 'node_modules', '.bin', 'tsc'),
    ['--ignoreConfig', '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', file],
    {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  return { status: tsc.status, output: tsc.stdout + tsc.stderr };
}

function asTypeScript(m: Manifest): string {
  return [
    "import type { Job } from 'kubernetes-types/batch/v1.js';",
    "import type { ConfigMap, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';",
    `export const configMap: ConfigMap = ${JSON.stringify(m.configMap, null, 2)};`,
    `export const claim: PersistentVolumeClaim = ${JSON.stringify(m.claim, null, 2)};`,
    `export const job: Job = ${JSON.stringify(m.job, null, 2)};`,
    '',
  ].join('\n');
}

/**
 * What the kubelet gives pod `index` of the Job: JOB_COMPLETION_INDEX (set by the Job controller), the
 * container's args with $(VAR) expanded from its environment, and its volumes mounted — here, local
 * folders standing in at each mountPath (the ConfigMap's files written into its folder).
 */
function podCommand(m: Manifest, index: number, volumes: Record<string, string>): { args: string[]; env: Record<string, string> } {
  const container: Container = m.job.spec!.template.spec!.containers[0]!;
  const env: Record<string, string> = { JOB_COMPLETION_INDEX: String(index) };
  for (const e of container.env ?? []) env[e.name] = e.value ?? '';
  const mounts = (container.volumeMounts ?? []).map((mount) => ({ from: mount.mountPath, to: volumes[mount.name]! })).sort((a, b) => b.from.length - a.from.length);
  const args = (container.args ?? []).map((arg) => {
    const expanded = arg.replace(/\$\(([A-Z_][A-Z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole);
    const mount = mounts.find((m) => expanded === m.from || expanded.startsWith(`${m.from}/`));
    return mount ? mount.to + expanded.slice(mount.from.length) : expanded;
  });
  return { args, env };
}

describe('stampede k8s: a Kubernetes Indexed Job of N segments', () => {
  let manifest: Manifest;
  let printed: string;

  it('prints a ConfigMap with the profile, a results claim and an Indexed Job of N pods sharing one start', () => {
    const k8s = stampede(['k8s', 'test/fixtures/cli/small.yaml', '--segments', '3', '--image', 'stampede:test', '--start-in', START_IN, '--name', 'small-k8s']);
    expect(k8s.status, k8s.stderr).toBe(0);
    printed = k8s.stdout;
    const docs = parseAllDocuments(printed).map((d) => d.toJS());
    expect(docs.map((d) => d.kind)).toEqual(['ConfigMap', 'PersistentVolumeClaim', 'Job']);
    manifest = { configMap: docs[0], claim: docs[1], job: docs[2] };
    const spec = manifest.job.spec!;
    expect([spec.completionMode, spec.completions, spec.parallelism]).toEqual(['Indexed', 3, 3]);
    const container = spec.template.spec!.containers[0]!;
    expect(container.image).toBe('stampede:test');
    expect(container.args).toEqual(expect.arrayContaining(['--segment', 'index/3', '--start-at']));
    const startAt = container.args![container.args!.indexOf('--start-at') + 1]!;
    expect(Date.parse(startAt)).toBeGreaterThan(Date.now());
    expect(manifest.configMap.data!['profile.yaml']).toBe(readFileSync(join(repoRoot, 'test/fixtures/cli/small.yaml'), 'utf8'));
    // The header (YAML comments) tells how to collect the pods' folders and merge them.
    expect(printed).toContain('#   stampede merge ./small-k8s/segment-* --out reports/small-k8s\n');
  });

  it('N local processes started with exactly what the Job gives each pod merge into one passing result', async () => {
    const volumes = { profile: join(scratch, 'profile-volume'), results: join(scratch, 'results-volume') };
    mkdirSync(volumes.profile, { recursive: true });
    mkdirSync(volumes.results, { recursive: true });
    for (const [file, text] of Object.entries(manifest.configMap.data!)) writeFileSync(join(volumes.profile, file), text);
    const pods = await Promise.all(
      [0, 1, 2].map((index) => {
        const { args, env } = podCommand(manifest, index, volumes);
        return stampedeAsync(args, 120_000, env);
      }),
    );
    for (const pod of pods) expect(pod.status, pod.stderr).toBe(0);
    const folders = readdirSync(join(volumes.results, 'small-k8s')).sort();
    expect(folders).toEqual(['segment-0', 'segment-1', 'segment-2']);
    const merged = join(scratch, 'merged');
    const merge = stampede(['merge', ...folders.map((f) => join(volumes.results, 'small-k8s', f)), '--out', merged]);
    expect(merge.status, merge.stderr).toBe(0);
    expect(merge.stdout).toMatch(/\nPASS: /);
    const result = JSON.parse(readFileSync(join(merged, 'result.json'), 'utf8')) as RunResult;
    expect(result.merged?.segments.map((s) => [s.index, s.count])).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
  }, 180_000);

  it('validates against the Kubernetes API types of kubernetes-types (and the check bites on a misspelt field)', () => {
    const valid = typecheck('manifest.ts', asTypeScript(manifest));
    expect(valid.output).toBe('');
    expect(valid.status).toBe(0);
    const misspelt = { ...manifest, job: { ...manifest.job, spec: { ...manifest.job.spec, completionsMode: 'Indexed' } as never } };
    const invalid = typecheck('misspelt.ts', asTypeScript(misspelt));
    expect(invalid.status).not.toBe(0);
    expect(invalid.output).toMatch(/completionsMode/);
  }, 120_000);
});
