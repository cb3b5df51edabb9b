import { Document } from 'yaml';
import type { CarriedFile } from './carried-files.ts';
import { type JobManifest, objectNames } from './job.ts';
import { PROFILE_DIR, RESULTS_MOUNT, runFolder } from './pod-layout.ts';
import type { SecretKey } from './pod-secrets.ts';

/* The manifest as `kubectl apply -f` reads it, with everything around it — secrets, storage, collecting, cleaning up — in its header. */

export interface ManifestNotes {
  name: string;
  segments: number;
  files: readonly CarriedFile[];
  secretKeys: readonly SecretKey[];
  claimName: string;
  barrier: { timeout: string; lead: string };
}

export function renderJobManifest(manifest: JobManifest, notes: ManifestNotes): string {
  const header = [...runLines(manifest, notes), ...storageLines(notes), ...secretLines(notes), ...applyLines(manifest, notes)];
  const documents = [manifest.configMap, ...(manifest.claim ? [manifest.claim] : []), manifest.job];
  return `${header.map((line) => (line === '' ? '#' : `# ${line}`)).join('\n')}\n${documents.map(toYaml).join('---\n')}`;
}

function runLines(manifest: JobManifest, notes: ManifestNotes): string[] {
  const carried = notes.files.map((f) => `${f.key} (at ${f.podPath})`);
  return [
    `stampede k8s: ${notes.name}, one run in ${notes.segments} segments on ${notes.segments} pods (a Kubernetes Indexed Job, Kubernetes 1.29 or later).`,
    'No start time is written here: apply it whenever you like. Each pod registers at a barrier on the results volume and the run',
    `starts when all ${notes.segments} have, ${notes.barrier.lead} after the last; a pod that has waited ${notes.barrier.timeout} without the others gives up, and so does`,
    'every other: exit 3, naming the segments that never arrived. A pod that failed before the start is run again (a verdict, a',
    'refusal or a run started without it is final: podFailurePolicy).',
    `The ConfigMap ${manifest.configMap.metadata!.name} holds the profile${carried.length > 0 ? ` and the files it names: ${carried.join(', ')}` : ''}.`,
    '',
  ];
}

function storageLines(notes: ManifestNotes): string[] {
  return [
    `Storage: the pods share the claim ${notes.claimName}, ReadWriteMany (NFS, CephFS, Amazon EFS, Azure Files, Google Filestore, …):`,
    "each writes its run folder there, and the barrier's files, which every other pod must see within a second or two (on NFS,",
    'mount with lookupcache=positive). Without ReadWriteMany, a ReadWriteOnce claim works only if every pod runs on one node.',
    '',
  ];
}

function secretLines(notes: ManifestNotes): string[] {
  const names = objectNames(notes.name);
  const tls = notes.files.filter((f) => f.store === 'tlsSecret');
  if (notes.secretKeys.length === 0 && tls.length === 0) return [];
  const lines = ['Secrets: the Job names them, never their values. Create them before applying it:'];
  if (notes.secretKeys.length > 0) {
    lines.push(...notes.secretKeys.map((k) => `  ${k.key}: ${k.what}`));
    const literals = notes.secretKeys.map((k) => `--from-literal=${k.key}="$${k.key}"`);
    lines.push(...continued(`kubectl create secret generic ${names.secrets}`, literals));
  }
  if (tls.length > 0)
    lines.push(
      ...continued(
        `kubectl create secret generic ${names.tls}`,
        tls.map((f) => shellWord(`--from-file=${f.key}=${f.localPath}`)),
      ),
    );
  return [...lines, ''];
}

function applyLines(manifest: JobManifest, notes: ManifestNotes): string[] {
  const { name } = notes;
  const names = objectNames(name);
  const spec = manifest.job.spec!;
  const collector = JSON.stringify({
    spec: {
      containers: [{ name: 'collect', image: 'busybox', command: ['sleep', '3600'], volumeMounts: [{ name: 'results', mountPath: RESULTS_MOUNT }] }],
      volumes: [{ name: 'results', persistentVolumeClaim: { claimName: notes.claimName } }],
    },
  });
  return [
    'Run it, and again whenever you like (say nightly): a finished Job is deleted with its pods',
    `${hours(spec.ttlSecondsAfterFinished!)} after it ends (ttlSecondsAfterFinished), and stopped if it lasts more than ${hours(spec.activeDeadlineSeconds!)} (activeDeadlineSeconds):`,
    `  kubectl delete job/${name} --ignore-not-found && kubectl apply -f job.yaml`,
    `  kubectl wait --for=condition=complete --timeout=${spec.activeDeadlineSeconds}s job/${name}`,
    `Each run has its folder on the claim, named by the Job's uid: ${runFolder(name, '<uid>')}/segment-<i>. Collect it and merge:`,
    `  RUN=$(kubectl get job/${name} -o jsonpath='{.metadata.uid}')`,
    `  kubectl run ${names.collector} --image=busybox --restart=Never --overrides='${collector}'`,
    `  kubectl wait --for=condition=ready pod/${names.collector}`,
    `  kubectl cp ${names.collector}:${runFolder(name, '$RUN')} ./${name}-$RUN`,
    `  stampede merge ./${name}-$RUN/segment-* --out reports/${name}`,
    `  kubectl delete pod/${names.collector}`,
    `The image: docker build -t IMAGE . in the stampede package (its Dockerfile); see docs/scale-out.md. The profile is read at ${PROFILE_DIR}.`,
  ];
}

/** A command split over lines the way a shell reads them back, one argument a line. */
function continued(command: string, words: readonly string[]): string[] {
  return [command, ...words].map((word, i) => `  ${i === 0 ? '' : '  '}${word}${i < words.length ? ' \\' : ''}`);
}

/** One shell word: as is when it is plain, single-quoted otherwise. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

function hours(seconds: number): string {
  return seconds >= 3600 && seconds % 3600 === 0 ? `${seconds / 3600} h` : `${Math.round(seconds / 60)} min`;
}

/**
 * One object as YAML every parser reads the same: no anchors, no folded lines, and written as YAML
 * 1.1 (kubectl's parser) so that a string it would read as something else — yes, on, a time, 0440
 * — is quoted.
 */
function toYaml(object: object): string {
  return new Document(object, { version: '1.1', aliasDuplicateObjects: false }).toString({ lineWidth: 0 });
}
