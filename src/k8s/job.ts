import type { ConfigMap, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { Job } from 'kubernetes-types/batch/v1.js';
import { Document, visit } from 'yaml';

/*
 * `stampede k8s`: a run split across N pods by Kubernetes' own distributed engine, an Indexed Job
 * (completionMode: Indexed, one pod per completion index, JOB_COMPLETION_INDEX in each pod's
 * environment). Each pod runs `stampede run --segment index/N` with one shared `--start-at`, reads
 * the profile from a ConfigMap and leaves its run folder on a shared volume; `stampede merge` joins
 * the folders into one run. This module only builds the manifest; it sends nothing.
 */

/** Where the pod sees the profile (the ConfigMap) and the results volume. */
export const PROFILE_MOUNT = '/etc/stampede';
export const PROFILE_FILE = 'profile.yaml';
export const RESULTS_MOUNT = '/results';

export interface JobSpecInput {
  /** DNS-1123 name of the Job; the ConfigMap and claim are named after it. */
  name: string;
  segments: number;
  image: string;
  /** The shared start, ISO 8601 UTC. */
  startAt: string;
  /** The profile YAML as the pods read it (self-contained: a topology file inlined). */
  profileYaml: string;
  /** `--set` overrides, passed on to every pod. */
  overrides: readonly string[];
  target?: string | undefined;
  /** Non-loopback hosts of the target: each pod allows them (--allow-remote), as the user named them. */
  remoteHosts: readonly string[];
  /** An existing ReadWriteMany claim for the results; a new one of `storage` when absent. */
  resultsClaim?: string | undefined;
  storage: string;
}

export interface JobManifest {
  configMap: ConfigMap;
  claim?: PersistentVolumeClaim;
  job: Job;
}

/** Where segment i's run folder is, inside the results volume (the pod's --out, with its index expanded by the kubelet). */
export function segmentFolder(name: string, index: number | '$(JOB_COMPLETION_INDEX)'): string {
  return `${RESULTS_MOUNT}/${name}/segment-${index}`;
}

export function buildJobManifest(input: JobSpecInput): JobManifest {
  const labels = { 'app.kubernetes.io/name': 'stampede', 'app.kubernetes.io/instance': input.name };
  const claimName = input.resultsClaim ?? `${input.name}-results`;
  const configMap: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${input.name}-profile`, labels }, data: { [PROFILE_FILE]: input.profileYaml } };
  const claim: PersistentVolumeClaim | undefined = input.resultsClaim
    ? undefined
    : {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: claimName, labels },
        // Every pod writes its folder here at once, from any node: the claim must be ReadWriteMany.
        spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: input.storage } } },
      };
  const args = [
    'run',
    `${PROFILE_MOUNT}/${PROFILE_FILE}`,
    '--segment',
    `index/${input.segments}`,
    '--start-at',
    input.startAt,
    '--out',
    segmentFolder(input.name, '$(JOB_COMPLETION_INDEX)'),
    '--quiet',
    ...(input.target !== undefined ? ['--target', input.target] : []),
    ...(input.remoteHosts.length > 0 ? ['--allow-remote', input.remoteHosts.join(',')] : []),
    ...input.overrides.flatMap((o) => ['--set', o]),
  ];
  const job: Job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: input.name, labels },
    spec: {
      completionMode: 'Indexed',
      completions: input.segments,
      parallelism: input.segments,
      // A segment is never retried: a late rerun would not share the start. Each index fails alone
      // (a FAIL verdict exits 1), so one segment's failure does not stop the others mid-run.
      backoffLimitPerIndex: 0,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          // The image runs as its `node` user (uid 1000): the results volume is made writable for its group.
          securityContext: { runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000 },
          containers: [
            {
              name: 'stampede',
              image: input.image,
              args,
              // A sending thread wants a core of its own: the generator's health is judged per segment.
              resources: { requests: { cpu: '1', memory: '512Mi' } },
              volumeMounts: [
                { name: 'profile', mountPath: PROFILE_MOUNT, readOnly: true },
                { name: 'results', mountPath: RESULTS_MOUNT },
              ],
            },
          ],
          volumes: [
            { name: 'profile', configMap: { name: `${input.name}-profile` } },
            { name: 'results', persistentVolumeClaim: { claimName } },
          ],
        },
      },
    },
  };
  return { configMap, ...(claim && { claim }), job };
}

/** The manifest as `kubectl apply -f` reads it, with the whole path from apply to merge in its header. */
export function renderJobManifest(manifest: JobManifest, input: JobSpecInput, startIn: string): string {
  const claimName = input.resultsClaim ?? `${input.name}-results`;
  const collector = JSON.stringify({
    spec: {
      containers: [{ name: 'collect', image: 'busybox', command: ['sleep', '3600'], volumeMounts: [{ name: 'results', mountPath: RESULTS_MOUNT }] }],
      volumes: [{ name: 'results', persistentVolumeClaim: { claimName } }],
    },
  });
  const header = [
    `stampede k8s: ${input.name}, one run in ${input.segments} segments (a Kubernetes Indexed Job), all starting at ${input.startAt}.`,
    `Apply it within ${startIn} of printing, so every pod is up before the start (a pod more than 5 s late refuses: exit 2):`,
    '  kubectl apply -f job.yaml && kubectl wait --for=condition=complete --timeout=1h job/' + input.name,
    `Pod i runs segment i (JOB_COMPLETION_INDEX) and leaves its run folder on the claim ${claimName} (ReadWriteMany),`,
    `at ${segmentFolder(input.name, 0).replace(/0$/, '<i>')}. Collect the folders and merge them into one run:`,
    `  kubectl run ${input.name}-collect --image=busybox --restart=Never --overrides='${collector}'`,
    `  kubectl wait --for=condition=ready pod/${input.name}-collect`,
    `  kubectl cp ${input.name}-collect:${RESULTS_MOUNT}/${input.name} ./${input.name}`,
    `  stampede merge ./${input.name}/segment-* --out reports/${input.name}`,
    `  kubectl delete pod/${input.name}-collect job/${input.name} configmap/${input.name}-profile`,
    'The image: docker build -t IMAGE . in the stampede package (its Dockerfile); see README "Scale out".',
  ];
  const documents = [manifest.configMap, ...(manifest.claim ? [manifest.claim] : []), manifest.job];
  return `${header.map((line) => `# ${line}`).join('\n')}\n${documents.map(toYaml).join('---\n')}`;
}

/**
 * One object as YAML kubectl reads the same on any parser: no anchors, and a time quoted (a YAML 1.1
 * parser would read a bare one as a timestamp, not the string an arg must be).
 */
function toYaml(object: object): string {
  const doc = new Document(object, { aliasDuplicateObjects: false });
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === 'string' && /^\d{4}-\d\d-\d\dT/.test(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({ lineWidth: 0 });
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
