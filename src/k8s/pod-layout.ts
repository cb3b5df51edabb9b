import { posix } from 'node:path';

/*
 * Where things are inside a pod of the Job: the profile and the files it names (from the
 * ConfigMap and the TLS Secret, one file mount each), and the results volume every pod shares.
 */

/** The folder the pod's profile is in: its relative file references resolve against it, as they do next to the profile file. */
export const PROFILE_DIR = '/etc/stampede';
export const PROFILE_FILE = 'profile.yaml';
export const PROFILE_PATH = `${PROFILE_DIR}/${PROFILE_FILE}`;
export const RESULTS_MOUNT = '/results';

/** The Job's uid, from the label the Job controller puts on each of its pods: one run's folder, however often the manifest is applied. */
export const RUN_ID_VARIABLE = 'JOB_UID';
export const RUN_ID_LABEL = 'batch.kubernetes.io/controller-uid';
/** The completion index the Job controller gives each pod. */
export const INDEX_VARIABLE = 'JOB_COMPLETION_INDEX';

/** The run's folder on the results volume: the segments' folders and the barrier. `run` is the Job's uid, or how the pod's args name it. */
export function runFolder(name: string, run: string = `$(${RUN_ID_VARIABLE})`): string {
  return `${RESULTS_MOUNT}/${name}/${run}`;
}

export function segmentFolder(name: string, index: number | string = `$(${INDEX_VARIABLE})`, run?: string): string {
  return `${runFolder(name, run)}/segment-${index}`;
}

export function barrierFolder(name: string, run?: string): string {
  return `${runFolder(name, run)}/barrier`;
}

/** Where the pod reads a file the profile names: a relative reference resolves against the pod's profile folder. */
export function podPathOf(reference: string): string {
  return posix.isAbsolute(reference) ? posix.normalize(reference) : posix.join(PROFILE_DIR, reference);
}

/**
 * An argument as the kubelet passes it on: it expands `$(NAME)` from the container's environment and
 * reads `$$` as `$`, so every `$` of a literal argument is doubled to reach stampede as written.
 */
export function literalArg(text: string): string {
  return text.replaceAll('$', '$$$$');
}
