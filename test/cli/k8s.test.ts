import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TLSSocket } from 'node:tls';
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { ConfigMap, Container, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ExitCode } from '../../src/cli/exit-codes.ts';
import { FINAL_EXIT_CODES } from '../../src/k8s/job.ts';
import type { RunResult } from '../../src/recorder/result.ts';
import { CLI_ENTRY, type CliResult, repoRoot, stampede, stampedeAsync } from '../helpers/cli.ts';
import { makeTestPki } from '../helpers/tls.ts';
import { startHttpsTarget } from '../helpers/tls-targets.ts';

/*
 * `stampede k8s` through the real CLI, and its pods emulated by local processes given exactly what
 * the Job gives each pod: JOB_COMPLETION_INDEX, the container's environment (the Job's uid from
 * the pod's label, each secret from the Secret the header's command makes), its args as the kubelet
 * expands them, and its volumes as folders of one local "pod file system" (the ConfigMap's and the
 * Secret's keys written where they are mounted, the results volume a folder they all share).
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-k8s-'));
// The type check resolves kubernetes-types from the repository's node_modules: its file lives inside the repository.
const typecheckDir = join(repoRoot, 'test', `.k8s-typecheck-${process.pid}`);
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(typecheckDir, { recursive: true, force: true });
});

interface Manifest {
  configMap: ConfigMap;
  claim?: PersistentVolumeClaim;
  job: Job;
}

/** What the cluster holds for the pods: the Secrets (key → value) and the Job's uid the controller labels them with. */
interface Cluster {
  root: string;
  uid: string;
  secrets: Record<string, Record<string, Buffer>>;
}

function printManifest(args: string[]): { printed: string; manifest: Manifest } {
  const k8s = stampede(['k8s', ...args]);
  expect(k8s.stderr).toBe('');
  expect(k8s.status).toBe(0);
  const docs = parseAllDocuments(k8s.stdout).map((d) => d.toJS());
  const job = docs.find((d) => d.kind === 'Job');
  return { printed: k8s.stdout, manifest: { configMap: docs.find((d) => d.kind === 'ConfigMap'), claim: docs.find((d) => d.kind === 'PersistentVolumeClaim'), job } };
}

function containerOf(m: Manifest): Container {
  return m.job.spec!.template.spec!.containers[0]!;
}

/**
 * The header's `kubectl create secret generic NAME …` commands, made as kubectl makes them: the
 * shell splits the words (reading `$NAME` from `env`), --from-literal=K=V and --from-file=K=PATH
 * (relative to where `stampede k8s` ran) fill the Secret.
 */
function secretsFromHeader(printed: string, env: Record<string, string>): Cluster['secrets'] {
  const commands = printed.match(/^# {3}kubectl create secret generic (?:.*\\\n#)*.*/gm) ?? [];
  const secrets: Cluster['secrets'] = {};
  for (const command of commands) {
    const text = command.replace(/\\\n# */g, ' ').replace(/^# {3}kubectl create secret generic /, '');
    const words = spawnSync('sh', ['-c', `printf '%s\\0' ${text}`], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env } })
      .stdout.split('\0')
      .slice(0, -1);
    const [name, ...sources] = words;
    const data: Record<string, Buffer> = {};
    for (const source of sources) {
      const [, kind, key, value] = /^--from-(literal|file)=([^=]+)=(.*)$/s.exec(source)!;
      data[key!] = kind === 'literal' ? Buffer.from(value!) : readFileSync(isAbsolute(value!) ? value! : join(repoRoot, value!));
    }
    secrets[name!] = data;
  }
  return secrets;
}

/** The kubelet's $(NAME) expansion of an argument: a defined variable's value, `$$` a `$`, anything else as written. */
function expand(text: string, env: Record<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string | undefined) => (name === undefined ? '$' : (env[name] ?? whole)));
}

/** Each volume mount of the container made in the cluster's file system: a key of a ConfigMap or Secret as a file, the claim as a shared folder. */
function mountVolumes(m: Manifest, cluster: Cluster): string[] {
  const volumes = m.job.spec!.template.spec!.volumes!;
  return (containerOf(m).volumeMounts ?? []).map((mount) => {
    const at = join(cluster.root, mount.mountPath);
    const volume = volumes.find((v) => v.name === mount.name)!;
    if (volume.persistentVolumeClaim) {
      mkdirSync(at, { recursive: true });
      return mount.mountPath;
    }
    const key = mount.subPath!;
    let content: Buffer;
    if (volume.configMap) {
      const data = m.configMap.data?.[key];
      content = data !== undefined ? Buffer.from(data) : Buffer.from(m.configMap.binaryData![key]!, 'base64');
    } else {
      content = cluster.secrets[volume.secret!.secretName!]![key]!;
    }
    mkdirSync(dirname(at), { recursive: true });
    writeFileSync(at, content);
    return mount.mountPath;
  });
}

/** What the kubelet gives pod `index` of the Job: its environment and its args, paths inside a mount pointing into the cluster's file system. */
function podCommand(m: Manifest, index: number, cluster: Cluster): { args: string[]; env: Record<string, string> } {
  const container = containerOf(m);
  const mounts = mountVolumes(m, cluster);
  const env: Record<string, string> = { JOB_COMPLETION_INDEX: String(index) };
  for (const e of container.env ?? []) {
    const secretRef = e.valueFrom?.secretKeyRef;
    if (e.valueFrom?.fieldRef) {
      expect(e.valueFrom.fieldRef.fieldPath).toBe("metadata.labels['batch.kubernetes.io/controller-uid']");
      env[e.name] = cluster.uid;
    } else if (secretRef) {
      const value = cluster.secrets[secretRef.name!]?.[secretRef.key];
      if (value === undefined) throw new Error(`CreateContainerConfigError: secret ${secretRef.name} has no key ${secretRef.key}`);
      env[e.name] = value.toString();
    } else {
      env[e.name] = e.value ?? '';
    }
  }
  const args = (container.args ?? []).map((arg) => {
    const expanded = expand(arg, env);
    const mounted = mounts.some((path) => expanded === path || expanded.startsWith(`${path}/`));
    return mounted ? join(cluster.root, expanded) : expanded;
  });
  return { args, env };
}

function startPod(m: Manifest, index: number, cluster: Cluster): Promise<CliResult> {
  const { args, env } = podCommand(m, index, cluster);
  return stampedeAsync(args, 240_000, env);
}

function newCluster(name: string, secrets: Cluster['secrets'] = {}): Cluster {
  const root = join(scratch, name);
  mkdirSync(root, { recursive: true });
  return { root, uid: `0d6c7f2e-${name}`, secrets };
}

function runFolder(cluster: Cluster, job: string): string {
  return join(cluster.root, 'results', job, cluster.uid);
}

/** Until segment `index` of `count` has registered at the barrier: the test knows who is waiting without assuming how long a start takes. */
async function registered(cluster: Cluster, job: string, index: number, count: number): Promise<void> {
  const file = join(runFolder(cluster, job), 'barrier', `ready-${index}-of-${count}.json`);
  for (let i = 0; !existsSync(file); i++) {
    if (i > 2400) throw new Error(`segment ${index} never registered at ${file}`);
    await sleep(100);
  }
}

/** Type-checks `source` with the repository's TypeScript against kubernetes-types; returns tsc's output and status. */
function typecheck(name: string, source: string): { status: number | null; output: string } {
  mkdirSync(typecheckDir, { recursive: true });
  const file = join(typecheckDir, name);
  writeFileSync(file, source);
  const tsc = spawnSync(
    join(repoRoot, 'node_modules', '.bin', 'tsc'),
    ['--ignoreConfig', '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', file],
    { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 },
  );
  return { status: tsc.status, output: tsc.stdout + tsc.stderr };
}

function asTypeScript(manifests: readonly Manifest[]): string {
  return [
    "import type { Job } from 'kubernetes-types/batch/v1.js';",
    "import type { ConfigMap, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';",
    ...manifests.flatMap((m, i) => [
      `export const configMap${i}: ConfigMap = ${JSON.stringify(m.configMap, null, 2)};`,
      ...(m.claim ? [`export const claim${i}: PersistentVolumeClaim = ${JSON.stringify(m.claim, null, 2)};`] : []),
      `export const job${i}: Job = ${JSON.stringify(m.job, null, 2)};`,
    ]),
    '',
  ].join('\n');
}

const printedManifests: Manifest[] = [];

describe('stampede k8s: an Indexed Job whose pods start together at a barrier', () => {
  it('carries the profile and its key file, bakes in no start, and is cleaned up after a lifetime taken from the run', () => {
    const { printed, manifest } = printManifest(['profiles/production-keys.yaml', '--segments', '3', '--image', 'stampede:test', '--name', 'keys-k8s']);
    printedManifests.push(manifest);
    const spec = manifest.job.spec!;
    expect([spec.completionMode, spec.completions, spec.parallelism]).toEqual(['Indexed', 3, 3]);
    const args = containerOf(manifest).args!;
    expect(args).not.toContain('--start-at');
    expect(args).toEqual(expect.arrayContaining(['--segment', 'index/3', '--barrier', '/results/keys-k8s/$(JOB_UID)/barrier', '--barrier-timeout', '10m']));
    expect(args).toContain('/results/keys-k8s/$(JOB_UID)/segment-$(JOB_COMPLETION_INDEX)');
    // 30 s of run and 5 s of warm-up, 10 min at the barrier and 10 s of lead, 10 min for the pods to start, 5 min to finish.
    expect(spec.activeDeadlineSeconds).toBe(600 + 610 + 35 + 300);
    expect(spec.ttlSecondsAfterFinished).toBe(3600);
    // stampede's own verdicts and refusals are final; a pod killed otherwise is run again.
    expect(FINAL_EXIT_CODES).toEqual([ExitCode.SloFailed, ExitCode.InvalidInput, ExitCode.CouldNotStart, ExitCode.Diverged, ExitCode.InternalError]);
    expect(spec.podFailurePolicy!.rules.find((r) => r.action === 'FailIndex')!.onExitCodes!.values).toEqual(FINAL_EXIT_CODES);
    expect(manifest.configMap.data!['keys.file']).toBe(readFileSync(join(repoRoot, 'profiles/data/keys-sample.csv'), 'utf8'));
    expect(manifest.configMap.data!['profile.yaml']).toContain('entry:'); // the topology file, inlined
    expect(containerOf(manifest).volumeMounts).toContainEqual({ name: 'profile', mountPath: '/etc/stampede/data/keys-sample.csv', subPath: 'keys.file', readOnly: true });
    expect(manifest.claim!.spec!.accessModes).toEqual(['ReadWriteMany']);
    expect(printed).toMatch(/^# Storage: the pods share the claim keys-k8s-results, ReadWriteMany/m);
    expect(printed).toContain('#   stampede merge ./keys-k8s-$RUN/segment-* --out reports/keys-k8s\n');
  });

  it('N pods, one started late within the bound: all start at one instant, read the key file, and their segments merge', async () => {
    const { manifest } = printManifest(['profiles/production-keys.yaml', '--segments', '3', '--image', 'stampede:test', '--name', 'keys-k8s']);
    const cluster = newCluster('within');
    const early = [startPod(manifest, 0, cluster), startPod(manifest, 1, cluster)];
    await Promise.all([registered(cluster, 'keys-k8s', 0, 3), registered(cluster, 'keys-k8s', 1, 3)]);
    const pods = [...(await Promise.all([...early, startPod(manifest, 2, cluster)]))];
    for (const pod of pods) expect(pod.status, pod.stderr).toBe(0);
    const starts = pods.map((pod) => /all 3 segments arrived: the run starts at (\S+)/.exec(pod.stderr)?.[1]);
    expect(new Set(starts).size).toBe(1);
    const folders = [0, 1, 2].map((i) => join(runFolder(cluster, 'keys-k8s'), `segment-${i}`));
    for (const folder of folders) {
      const result = JSON.parse(readFileSync(join(folder, 'result.json'), 'utf8')) as RunResult;
      expect(result.segment!.startAt).toBe(starts[0]);
    }
    const merged = join(cluster.root, 'merged');
    const merge = stampede(['merge', ...folders, '--out', merged]);
    expect(merge.status, merge.stderr).toBe(0);
    const result = JSON.parse(readFileSync(join(merged, 'result.json'), 'utf8')) as RunResult;
    expect(result.merged?.segments.map((s) => [s.index, s.count])).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
    const profile = JSON.parse(readFileSync(join(merged, 'profile.json'), 'utf8'));
    expect(profile.keys.sample.count).toBe(400);
  }, 300_000);

  it('beyond the bound: every pod exits 3 naming the segment that never arrived, and sends nothing', async () => {
    const { manifest } = printManifest(['test/fixtures/cli/small.yaml', '--segments', '3', '--image', 'stampede:test', '--name', 'small-k8s', '--barrier-timeout', '2s']);
    const cluster = newCluster('beyond');
    const waited = await Promise.all([startPod(manifest, 0, cluster), startPod(manifest, 1, cluster)]);
    const late = await startPod(manifest, 2, cluster);
    for (const pod of [...waited, late]) {
      expect(pod.status, pod.stderr).toBe(ExitCode.CouldNotStart);
      // Segment 1 may have come only after segment 0 gave up: then both are named.
      expect(pod.stderr).toMatch(/\nstampede: could not start: segments? (1 and )?2 of 3 never arrived at the barrier in .*: the run did not start, nothing was sent\n$/);
      expect(pod.stderr).not.toMatch(/\n\s+at /);
    }
    expect(late.stderr).toContain('this segment (2) came after that');
    expect(readdirSync(runFolder(cluster, 'small-k8s'))).toEqual(['barrier']);
  }, 300_000);

  it('a pod stopped at the barrier (evicted) exits 143 and sends nothing; run again, it rejoins and the run starts', async () => {
    const { manifest } = printManifest(['test/fixtures/cli/small.yaml', '--segments', '2', '--image', 'stampede:test', '--name', 'evicted-k8s']);
    const cluster = newCluster('evicted');
    const { args, env } = podCommand(manifest, 0, cluster);
    const evicted = spawn(process.execPath, [CLI_ENTRY, ...args], { cwd: repoRoot, env: { ...process.env, ...env } });
    let stderr = '';
    evicted.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => evicted.on('close', resolve));
    await registered(cluster, 'evicted-k8s', 0, 2);
    evicted.kill('SIGTERM');
    expect(await exited).toBe(ExitCode.Terminated);
    expect(stderr).toMatch(/interrupted at the barrier in .*: nothing was sent\n$/);
    expect(readdirSync(join(runFolder(cluster, 'evicted-k8s'), 'barrier'))).toEqual(['ready-0-of-2.json']);
    const pods = await Promise.all([startPod(manifest, 0, cluster), startPod(manifest, 1, cluster)]);
    for (const pod of pods) expect(pod.status, pod.stderr).toBe(0);
  }, 300_000);

  it('gives the pods their secrets from a Secret and their TLS files from another, never writing a value into the manifest', async () => {
    const dir = join(scratch, 'tls-profile');
    mkdirSync(dir, { recursive: true });
    const pki = await makeTestPki(dir);
    const seen = { requests: 0, wrong: [] as string[] };
    const target = await startHttpsTarget(
      { key: pki.server.key, cert: pki.server.cert, ca: pki.caCert, requestCert: true, rejectUnauthorized: true },
      (req: IncomingMessage, res: ServerResponse) => {
        seen.requests++;
        const client = (req.socket as TLSSocket).getPeerCertificate().subject?.CN;
        const got = `${req.headers.authorization} ${req.headers['x-api-key']} ${client}`;
        if (got !== 'Bearer tok-3f9a k3y-77c1 stampede client') seen.wrong.push(got);
        res.end('ok');
      },
    );
    try {
      const profile = join(dir, 'secret-tls.yaml');
      writeFileSync(
        profile,
        [
          'name: secret-tls',
          'seed: 3',
          `target: ${target.url}`,
          'phases: [{ type: steady, rate: 20, duration: 2s }]',
          'http:',
          '  tls: { ca: ca.pem, cert: client.pem, key: client-key.pem }',
          '  requests:',
          '    default:',
          '      path: /item/{{key}}',
          '      headers: { authorization: "Bearer ${AUTH_TOKEN}" }',
          'keys: { count: 100 }',
          // What is checked is what reached the target, not the generator's health on a busy machine.
          'generator: { eventLoopLagP99: 10s, cpu: 1, dispatchLatenessP99: 10s }',
          '',
        ].join('\n'),
      );
      const overrides = ['--set', 'http.requests.default.headers.x-api-key=k3y-77c1', '--set', 'description=costs $5, $(not a variable) and $$'];
      const { printed, manifest } = printManifest([profile, '--segments', '2', '--image', 'stampede:test', '--name', 'tls-k8s', ...overrides]);
      printedManifests.push(manifest);
      expect(printed).not.toContain('k3y-77c1');
      expect(printed).not.toContain('tok-3f9a');
      expect(printed).not.toContain('PRIVATE KEY');
      expect(containerOf(manifest).env).toEqual(
        expect.arrayContaining([
          { name: 'AUTH_TOKEN', valueFrom: { secretKeyRef: { name: 'tls-k8s-secrets', key: 'AUTH_TOKEN' } } },
          { name: 'SET_VALUE_1', valueFrom: { secretKeyRef: { name: 'tls-k8s-secrets', key: 'SET_VALUE_1' } } },
        ]),
      );
      expect(printed).toContain('#   SET_VALUE_1: the value you gave --set http.requests.default.headers.x-api-key\n');
      const cluster = newCluster('tls', secretsFromHeader(printed, { AUTH_TOKEN: 'tok-3f9a', SET_VALUE_1: 'k3y-77c1' }));
      expect(Object.keys(cluster.secrets['tls-k8s-tls']!).sort()).toEqual(['http.tls.ca', 'http.tls.cert', 'http.tls.key']);
      const pods = await Promise.all([startPod(manifest, 0, cluster), startPod(manifest, 1, cluster)]);
      for (const pod of pods) expect(pod.status, pod.stderr).toBe(0);
      expect(seen.wrong).toEqual([]);
      const results = [0, 1].map((i) => JSON.parse(readFileSync(join(runFolder(cluster, 'tls-k8s'), `segment-${i}`, 'result.json'), 'utf8')) as RunResult);
      expect(results.reduce((sum, r) => sum + r.requests.ok, 0)).toBe(seen.requests);
      expect(seen.requests).toBeGreaterThan(0);
      // Every argument reached stampede as written: the kubelet's $(…) and $$ left the literal ones alone.
      for (const r of results) expect(r.profile.description).toBe('costs $5, $(not a variable) and $$');
    } finally {
      await target.close();
    }
  }, 300_000);

  it('refuses a profile that writes a credential as is (exit 2, naming the file, line and field), without showing it', () => {
    const profile = join(scratch, 'literal-credential.yaml');
    writeFileSync(
      profile,
      'name: literal\ntarget: http://127.0.0.1:9\nphases: [{ type: steady, rate: 10, duration: 1s }]\nhttp:\n  requests:\n    default:\n      headers: { x-api-key: s3cr3t-v4lue }\nkeys: { count: 10 }\n',
    );
    const k8s = stampede(['k8s', profile, '--segments', '2', '--image', 'stampede:test']);
    expect(k8s.status).toBe(ExitCode.InvalidInput);
    expect(k8s.stdout).toBe('');
    expect(k8s.stderr).toContain(`${profile}:7:`);
    expect(k8s.stderr).toContain('http.requests.default.headers.x-api-key: holds a credential as written (not shown)');
    expect(k8s.stderr).not.toContain('s3cr3t');
  });

  it('validates against the Kubernetes API types of kubernetes-types (and the check bites on a misspelt field)', () => {
    expect(printedManifests).toHaveLength(2);
    const valid = typecheck('manifest.ts', asTypeScript(printedManifests));
    expect(valid.output).toBe('');
    expect(valid.status).toBe(0);
    const [first] = printedManifests;
    const misspelt = { ...first!, job: { ...first!.job, spec: { ...first!.job.spec, backoffLimitsPerIndex: 2 } as never } };
    const invalid = typecheck('misspelt.ts', asTypeScript([misspelt]));
    expect(invalid.status).not.toBe(0);
    expect(invalid.output).toMatch(/backoffLimitsPerIndex/);
  }, 120_000);
});
