import type { Topology } from './topology/index.ts';
import type { ProfileIssue } from './issues.ts';
import type { KeySample } from './key-file.ts';
import type { ParsedProfile } from './schema.ts';
import type { SecretReference } from './secrets.ts';

/**
 * A validated profile with every default applied, durations in µs and the topology loaded. A profile
 * for a real target may have no topology; running one on the model needs it (`requireTopology`).
 */
export interface Profile extends Omit<ParsedProfile, 'topology' | 'keys'> {
  topology?: Topology;
  keys: Keys;
  source: ProfileSource;
}

/** The keyspace; with `keys.file`, `count` is the file's number of keys and `sample` its keys (see key-file.ts). */
export type Keys = ParsedProfile['keys'] & { sample?: KeySample };

export interface ProfileSource {
  /** Path of the profile file as the user gave it. */
  file: string;
  /** Path of the topology file when the profile references one. */
  topologyFile?: string;
  /** sha256 of the resolved profile (after --set), so two runs can tell whether they ran the same thing. */
  sha256: string;
  /** The --set overrides applied, in order; one that wrote a secret has its value [redacted] (redaction.ts). */
  overrides: string[];
  /** Each `${NAME}` of the request templates and where it is used; absent when there is none (see secrets.ts). */
  secrets?: SecretReference[];
  /**
   * Keys a memcached server would refuse (over 250 bytes, a space or a control character), each where
   * it is written: a memcached target refuses the profile with them (memcached-keys.ts). Absent when every key fits.
   */
  memcachedKeyIssues?: ProfileIssue[];
}
