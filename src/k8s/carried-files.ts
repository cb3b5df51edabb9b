import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { PathSegment } from '../profile/issues.ts';
import type { Profile } from '../profile/types.ts';
import { profileIssue } from './issues.ts';
import { PROFILE_DIR, PROFILE_FILE, PROFILE_PATH, podPathOf, RESULTS_MOUNT } from './pod-layout.ts';

/*
 * The files a profile names, carried into every pod: the key sample (keys.file) in the ConfigMap
 * beside the profile, the TLS material of an https:// target (http.tls.ca, cert, key) in a Secret.
 * Each is mounted alone (a subPath mount) exactly where the pod's stampede resolves the profile's
 * reference, so the profile's text — and its digest, which names the references as written — is
 * the same in the pod as here.
 */

export type FileStore = 'configMap' | 'tlsSecret';

export interface CarriedFile {
  /** The profile field naming it, e.g. `keys.file`; also its key in the ConfigMap or the Secret. */
  key: string;
  store: FileStore;
  /** Where it is read from here, as the profile's loader resolves it. */
  localPath: string;
  /** Where the pod reads it. */
  podPath: string;
}

/** The API server refuses a ConfigMap whose data passes 1 MiB. */
export const CONFIG_MAP_LIMIT_BYTES = 1024 * 1024;

const TLS_FIELDS = ['ca', 'cert', 'key'] as const;

/** Every file the run will read, once each (a PEM holding both cert and key is one file). `https`: the pods' target is https://, so its TLS files are read. */
export function carriedFiles(profile: Profile, https: boolean): CarriedFile[] {
  const named: { path: PathSegment[]; reference: string; localPath: string; store: FileStore }[] = [];
  const sample = profile.keys.sample;
  if (profile.keys.file !== undefined && sample !== undefined) named.push({ path: ['keys', 'file'], reference: profile.keys.file, localPath: sample.path, store: 'configMap' });
  for (const field of https ? TLS_FIELDS : []) {
    const reference = profile.http.tls[field];
    if (reference !== undefined) named.push({ path: ['http', 'tls', field], reference, localPath: nextToProfile(profile, reference), store: 'tlsSecret' });
  }
  const files: CarriedFile[] = [];
  for (const file of named) {
    const podPath = podPathOf(file.reference);
    refuseUnmountable(profile, file.path, podPath);
    const same = files.find((f) => f.podPath === podPath);
    if (same && same.localPath !== file.localPath)
      throw profileIssue(profile, file.path, `${file.reference} would be read in the pods where ${same.key} is (${podPath})`, 'name the files so that each has a path of its own');
    if (!same) files.push({ key: file.path.join('.'), store: file.store, localPath: file.localPath, podPath });
  }
  return files;
}

/** The ConfigMap's data: the profile and the key sample (binaryData for a file that is not UTF-8). @throws ProfileError when it passes the API's limit */
export function configMapData(profile: Profile, profileText: string, files: readonly CarriedFile[]): { data: Record<string, string>; binaryData?: Record<string, string> } {
  const data: Record<string, string> = { [PROFILE_FILE]: profileText };
  const binaryData: Record<string, string> = {};
  let bytes = Buffer.byteLength(profileText);
  for (const file of files.filter((f) => f.store === 'configMap')) {
    const content = readFileSync(file.localPath);
    bytes += content.length;
    const text = utf8(content);
    if (text === undefined) binaryData[file.key] = content.toString('base64');
    else data[file.key] = text;
  }
  if (bytes > CONFIG_MAP_LIMIT_BYTES)
    throw profileIssue(
      profile,
      ['keys', 'file'],
      `the profile and its key file are ${(bytes / 1024 / 1024).toFixed(1)} MiB, more than the 1 MiB a ConfigMap holds`,
      'sample fewer keys: the heaviest carry the skew',
    );
  return Object.keys(binaryData).length > 0 ? { data, binaryData } : { data };
}

function utf8(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function nextToProfile(profile: Profile, reference: string): string {
  return isAbsolute(reference) ? reference : join(dirname(profile.source.file), reference);
}

/** A file mount cannot sit on the profile itself, on its folder or inside the results volume (a mount inside another). */
function refuseUnmountable(profile: Profile, path: PathSegment[], podPath: string): void {
  const inResults = podPath === RESULTS_MOUNT || podPath.startsWith(`${RESULTS_MOUNT}/`);
  if (podPath === PROFILE_PATH || podPath === PROFILE_DIR || inResults)
    throw profileIssue(
      profile,
      path,
      `would be read in the pods at ${podPath}, where ${inResults ? 'the results volume' : 'the profile'} is mounted`,
      'give the file another name or folder',
    );
}
