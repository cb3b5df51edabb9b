import type { Job, PodFailurePolicy } from 'kubernetes-types/batch/v1.js';
import type { ConfigMap, PersistentVolumeClaim, Volume, VolumeMount } from 'kubernetes-types/core/v1.js';
import type { CarriedFile } from './carried-files.ts';
import type { JobLifetime } from './lifetime.ts';
import { barrierFolder, literalArg, PROFILE_FILE, PROFILE_PATH, RESULTS_MOUNT, RUN_ID_LABEL, RUN_ID_VARIABLE, segmentFolder } from './pod-layout.ts';
import type { PodSecrets } from './pod-secrets.ts';

/*
 * `stampede k8s`: a run split across N pods by Kubernetes' own distributed engine, an Indexed Job
 * (completionMode: Indexed, one pod per completion index, JOB_COMPLETION_INDEX in each pod's
 * environment). Each pod runs `stampede run --segment index/N --barrier …`: no start is written in
 * the manifest — the pods meet at a barrier on the results volume they share and start together
 * once all N are there — so the manifest can be kept in Git and applied at any time. The profile
 * and the files it names come from a ConfigMap and a TLS Secret, its secrets from a Secret by
 * name; each pod leaves its run folder on the shared volume, and `stampede merge` joins them. This
 * module only builds the manifest; it sends nothing.
 */

export interface JobSpecInput {
  /** DNS-1123 name of the Job; the ConfigMap, Secrets and claim are named after it. */
  name: string;
  segments: number;
  image: string;
  /** The ConfigMap's data: the profile (self-contained) and the key sample. */
  profileData: { data: Record<string, string>; binaryData?: Record<string, string> };
  files: readonly CarriedFile[];
  secrets: PodSecrets;
  target?: string | undefined;
  /** Non-loopback hosts of the target: each pod allows them (--allow-remote), as the user named them. */
  remoteHosts: readonly string[];
  /** An existing claim for the results; a new ReadWriteMany one of `storage` when absent. */
  resultsClaim?: string | undefined;
  storage: string;
  storageClass?: string | undefined;
  /** `--barrier-timeout` and `--barrier-lead` as the pods get them. */
  barrier: { timeout: string; lead: string };
  lifetime: JobLifetime;
}

export interface JobManifest {
  configMap: ConfigMap;
  claim?: PersistentVolumeClaim;
  job: Job;
}

/** The objects of one Job, by name. The Secrets are the user's to create: the manifest names them, never their values. */
export function objectNames(name: string) {
  return { profile: `${name}-profile`, secrets: `${name}-secrets`, tls: `${name}-tls`, claim: `${name}-results`, collector: `${name}-collect` };
}

/** The stampede container's name, which the pod failure policy matches on. */
export const CONTAINER = 'stampede';

/**
 * stampede's own exit codes (src/cli/exit-codes.ts): a verdict (1 FAIL or INVALID, 4 diverged), a
 * refusal (2), a run that could not start (3: a barrier never released, the run started without
 * this segment, no connection) or a bug (70). Running that pod again would only repeat it, or send
 * its segment alone, so its index fails at once; a pod that died otherwise (killed, out of memory,
 * a signal) is run again, and rejoins the barrier if the run has not started yet.
 */
export const FINAL_EXIT_CODES = [1, 2, 3, 4, 70];

/** Pods run again per index after a failure stampede did not decide (see FINAL_EXIT_CODES). */
const RETRIES_PER_INDEX = 2;

const POD_FAILURE_POLICY: PodFailurePolicy = {
  rules: [
    // Evicted, preempted, its node drained: not the pod's failure, so it does not use up a retry.
    { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
    { action: 'FailIndex', onExitCodes: { containerName: CONTAINER, operator: 'In', values: FINAL_EXIT_CODES } },
  ],
};

export function buildJobManifest(input: JobSpecInput): JobManifest {
  const names = objectNames(input.name);
  const labels = { 'app.kubernetes.io/name': 'stampede', 'app.kubernetes.io/instance': input.name };
  const claimName = input.resultsClaim ?? names.claim;
  const configMap: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: names.profile, labels }, ...input.profileData };
  const claim: PersistentVolumeClaim | undefined = input.resultsClaim
    ? undefined
    : {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: claimName, labels },
        // Every pod writes its folder and the barrier's files here at once, from any node: ReadWriteMany.
        spec: {
          accessModes: ['ReadWriteMany'],
          resources: { requests: { storage: input.storage } },
          ...(input.storageClass !== undefined && { storageClassName: input.storageClass }),
        },
      };
  const job: Job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: input.name, labels },
    spec: {
      completionMode: 'Indexed',
      completions: input.segments,
      parallelism: input.segments,
      backoffLimitPerIndex: RETRIES_PER_INDEX,
      podFailurePolicy: POD_FAILURE_POLICY,
      ...input.lifetime,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          // The image runs as its `node` user (uid 1000): the results volume and the TLS files are made readable and writable for its group.
          securityContext: { runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000 },
          containers: [
            {
              name: CONTAINER,
              image: input.image,
              args: podArgs(input),
              env: [{ name: RUN_ID_VARIABLE, valueFrom: { fieldRef: { fieldPath: `metadata.labels['${RUN_ID_LABEL}']` } } }, ...input.secrets.env],
              // A sending thread wants a core of its own: the generator's health is judged per segment.
              resources: { requests: { cpu: '1', memory: '512Mi' } },
              volumeMounts: mounts(input.files),
            },
          ],
          volumes: volumes(input, claimName),
        },
      },
    },
  };
  return { configMap, ...(claim && { claim }), job };
}

function podArgs(input: JobSpecInput): string[] {
  return [
    'run',
    PROFILE_PATH,
    '--segment',
    `index/${input.segments}`,
    '--barrier',
    barrierFolder(input.name),
    '--barrier-timeout',
    literalArg(input.barrier.timeout),
    '--barrier-lead',
    literalArg(input.barrier.lead),
    '--out',
    segmentFolder(input.name),
    '--quiet',
    ...(input.target !== undefined ? ['--target', literalArg(input.target)] : []),
    ...(input.remoteHosts.length > 0 ? ['--allow-remote', literalArg(input.remoteHosts.join(','))] : []),
    ...input.secrets.overrides.flatMap((o) => ['--set', o]),
  ];
}

/** The profile and each file it names mounted alone where the pod reads it (no mount inside another), and the results volume. */
function mounts(files: readonly CarriedFile[]): VolumeMount[] {
  return [
    { name: 'profile', mountPath: PROFILE_PATH, subPath: PROFILE_FILE, readOnly: true },
    ...files.map((f) => ({ name: f.store === 'configMap' ? 'profile' : 'tls', mountPath: f.podPath, subPath: f.key, readOnly: true })),
    { name: 'results', mountPath: RESULTS_MOUNT },
  ];
}

function volumes(input: JobSpecInput, claimName: string): Volume[] {
  const names = objectNames(input.name);
  const tls = input.files.some((f) => f.store === 'tlsSecret');
  return [
    { name: 'profile', configMap: { name: names.profile } },
    // A private key readable by the pod's group only (fsGroup), not by everyone.
    ...(tls ? [{ name: 'tls', secret: { secretName: names.tls, defaultMode: 0o440 } }] : []),
    { name: 'results', persistentVolumeClaim: { claimName } },
  ];
}

/** A Kubernetes object name from a profile's name: lowercase letters, digits and dashes, short enough for the pods' names. */
export function jobName(profileName: string): string {
  const name = `stampede-${profileName}`
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .slice(0, 52)
    .replace(/^-+|-+$/g, '');
  return name;
}
