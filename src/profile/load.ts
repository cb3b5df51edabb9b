import path from 'node:path';
import { InputFileError, readInputText } from '../files/input-file.ts';
import { type Topology, TopologySchema } from './topology/index.ts';
import { checkProfile } from './checks.ts';
import { checkEnvironmentReferences } from './environment-references.ts';
import { PROFILE_FILE, TOPOLOGY_FILE } from './file-bounds.ts';
import { sha256Hex } from './fingerprint.ts';
import { type PathIssue, type PathSegment, type ProfileIssue, ProfileError, formatPath } from './issues.ts';
import { type AppliedOverride, type Override, applyOverride, overrideFor, parseOverride } from './overrides.ts';
import { ProfileSchema } from './schema.ts';
import { type KeySample, readKeyFile } from './key-file.ts';
import { generatedKeyIssues } from './memcached-keys.ts';
import { overrideProblem, redactOverride } from './redaction.ts';
import { findSecretReferences } from './secrets.ts';
import type { Profile } from './types.ts';
import { type Position, type YamlSource, documentData, locate, parseYamlSource } from './yaml-source.ts';
import { salvage } from './schema-walk.ts';
import { translateZodIssues } from './zod-issues.ts';

/**
 * loadProfile reads a YAML profile, applies `--set` overrides, validates it (schema and cross-field checks), loads its
 * topology and key file and returns the resolved profile: defaults applied, durations in µs. `${NAME}` references
 * stay as written (they are resolved when a run starts: secrets.ts).
 * @throws ProfileError listing every problem found, in the profile and in its topology file.
 */
export async function loadProfile(file: string, overrides: string[] = []): Promise<Profile> {
  let text: string;
  try {
    text = readInputText(file, PROFILE_FILE);
  } catch (error) {
    const message = `cannot read the profile: ${readFailure(error)}`;
    throw new ProfileError(file, [{ file, line: 0, column: 0, path: '', message, hint: 'check the path; example profiles live in profiles/' }]);
  }
  return parseProfileText(text, file, overrides);
}

/**
 * parseProfileText is loadProfile for text already in memory. `fileName` names the profile in issues and is the base
 * for a topology file and a key file (keys.file), which are still read from disk.
 * @throws ProfileError listing every problem found.
 */
export async function parseProfileText(text: string, fileName: string, overrides: string[] = []): Promise<Profile> {
  const parsed = parseYamlSource(text, fileName);
  // A document with syntax errors has no reliable structure; schema issues on it would only add noise.
  if (parsed.issues.length > 0) throw new ProfileError(fileName, parsed.issues);
  const source = parsed.source;
  const { applied, forTopologyFile, issues } = applyProfileOverrides(source, overrides);

  const converted = documentData(source);
  if ('issue' in converted) throw new ProfileError(fileName, [converted.issue]);
  const data = converted.data;
  const result = ProfileSchema.safeParse(data);
  const asParsed = result.success ? result.data : salvage(ProfileSchema, data);
  const problems: PathIssue[] = [
    ...(result.success ? [] : translateZodIssues(ProfileSchema, result.error.issues, data)),
    ...(asParsed === undefined ? [] : checkProfile(asParsed, (at) => writes(source, applied, at))),
    // `${` where nothing reads the environment: a check of the text as written, whatever the schema made of it.
    ...checkEnvironmentReferences(data),
  ];
  issues.push(...placeIssues(source, problems, applied));

  const reference = topologyReference(data);
  const topologyFile = reference === undefined ? undefined : relativeTo(fileName, reference);
  let topology: Topology | undefined;
  if (topologyFile !== undefined) {
    const loaded = await loadTopologyFile(topologyFile, forTopologyFile, source);
    issues.push(...loaded.issues);
    topology = loaded.topology;
  }

  const keyFile = result.success && result.data.keys.file !== undefined ? relativeTo(fileName, result.data.keys.file) : undefined;
  let sample: KeySample | undefined;
  const memcachedKeyIssues: ProfileIssue[] = [];
  if (keyFile !== undefined) {
    const loaded = await loadKeyFile(keyFile, source, applied);
    issues.push(...loaded.issues);
    sample = loaded.sample;
    memcachedKeyIssues.push(...loaded.memcachedIssues);
  }

  if (issues.length > 0 || !result.success) throw new ProfileError(fileName, orderIssues(issues, [fileName, topologyFile, keyFile]));
  const { topology: given, ...rest } = result.data;
  const keys = sample === undefined ? rest.keys : { ...rest.keys, count: sample.keys.length, sample };
  const resolved = { ...rest, keys, ...(given !== undefined && { topology: typeof given === 'string' ? topology! : given }) };
  // The sample is fingerprinted by its file's hash (not its path, which depends on where the command ran): hashing millions of keys again would only be slower.
  const fingerprinted = sample === undefined ? resolved : { ...resolved, keys: { ...keys, sample: sample.sha256 } };
  const secrets = findSecretReferences(resolved.http.requests, (at) => overrideFor(applied, at)?.at ?? locate(source, at));
  // Known for every profile, refused only by a memcached target (which --target may name after loading).
  memcachedKeyIssues.unshift(...placeIssues(source, generatedKeyIssues(keys, sample !== undefined), applied));
  return {
    ...resolved,
    source: {
      file: fileName,
      ...(topologyFile !== undefined && { topologyFile }),
      sha256: sha256Hex(fingerprinted),
      // As shown in every artifact: a --set that wrote a sensitive header keeps its path, not its value.
      overrides: overrides.map(redactOverride),
      ...(secrets.length > 0 && { secrets }),
      ...(memcachedKeyIssues.length > 0 && { memcachedKeyIssues }),
    },
  };
}

/**
 * applyProfileOverrides applies each --set in order. `topology.…` goes to the topology file when the profile (as
 * overridden so far) references one; those are applied once that file is read.
 */
function applyProfileOverrides(source: YamlSource, overrides: readonly string[]) {
  const issues: ProfileIssue[] = [];
  const applied: AppliedOverride[] = [];
  const forTopologyFile: Override[] = [];
  for (const text of overrides) {
    const override = parseOverride(text);
    if ('problem' in override) {
      issues.push(overrideIssue(source.file, text, overrideProblem(text, override.problem)));
    } else if (override.path[0] === 'topology' && override.path.length > 1 && typeof source.doc.get('topology') === 'string') {
      forTopologyFile.push({ ...override, path: override.path.slice(1) });
    } else {
      const result = applyOverride(source, override);
      if ('problem' in result) issues.push(overrideIssue(source.file, text, result.problem, override.path, locate(source, override.path)));
      else applied.push(result);
    }
  }
  return { applied, forTopologyFile, issues };
}

/** A file a profile names, relative to the profile's folder unless absolute. */
function relativeTo(profileFile: string, reference: string): string {
  return path.isAbsolute(reference) ? reference : path.join(path.dirname(profileFile), reference);
}

/**
 * Reads `keys.file`. Problems in the CSV name the CSV, its line and field; a file that cannot be
 * read, or weights beside an explicit `popularity`, point at the profile's own field.
 */
async function loadKeyFile(
  file: string,
  profile: YamlSource,
  applied: readonly AppliedOverride[],
): Promise<{ sample?: KeySample; issues: ProfileIssue[]; memcachedIssues: ProfileIssue[] }> {
  const read = await readKeyFile(file);
  if ('unreadable' in read) {
    const message = `cannot read key file ${JSON.stringify(file)}: ${read.unreadable}`;
    return {
      issues: placeIssues(profile, [{ path: ['keys', 'file'], message, hint: `the path is relative to the profile's directory (${path.dirname(profile.file)})` }], applied),
      memcachedIssues: [],
    };
  }
  if ('issues' in read) return { issues: read.issues, memcachedIssues: [] };
  if (read.sample.cumulative !== undefined && writes(profile, applied, ['keys', 'popularity'])) {
    const message = `the key file ${JSON.stringify(file)} has weights: they are the popularity`;
    return {
      issues: placeIssues(
        profile,
        [{ path: ['keys', 'popularity'], message, hint: 'remove keys.popularity, or drop the weight column to rank the keys by a law in file order' }],
        applied,
      ),
      memcachedIssues: [],
    };
  }
  return { sample: read.sample, issues: [], memcachedIssues: read.memcachedIssues };
}

/** Whether the profile writes the field at `path`: in the file, or by a --set that wrote it or a field within it. */
function writes(source: YamlSource, applied: readonly AppliedOverride[], path: readonly PathSegment[]): boolean {
  return source.doc.hasIn(path) || applied.some((o) => path.every((segment, i) => o.path[i] === segment));
}

function topologyReference(data: unknown): string | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  const value = (data as Record<string, unknown>).topology;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Issues in the topology file show paths from the profile's point of view (`topology.services…`), as --set takes them. */
const TOPOLOGY_PREFIX: readonly PathSegment[] = ['topology'];

async function loadTopologyFile(file: string, overrides: readonly Override[], profile: YamlSource): Promise<{ topology?: Topology; issues: ProfileIssue[] }> {
  let text: string;
  try {
    text = readInputText(file, TOPOLOGY_FILE);
  } catch (error) {
    const message = `cannot read topology file ${JSON.stringify(file)}: ${readFailure(error)}`;
    const hint = `the path is relative to the profile's directory (${path.dirname(profile.file)})`;
    return { issues: placeIssues(profile, [{ path: ['topology'], message, hint }], []) };
  }
  const { source, issues } = parseYamlSource(text, file);
  if (issues.length > 0) return { issues };
  const applied: AppliedOverride[] = [];
  for (const override of overrides) {
    const result = applyOverride(source, override);
    if ('problem' in result) {
      issues.push(overrideIssue(file, override.text, result.problem, [...TOPOLOGY_PREFIX, ...override.path], locate(source, override.path)));
    } else {
      applied.push(result);
    }
  }
  const converted = documentData(source);
  if ('issue' in converted) return { issues: [...issues, converted.issue] };
  const data = converted.data;
  const result = TopologySchema.safeParse(data);
  if (!result.success) issues.push(...placeIssues(source, translateZodIssues(TopologySchema, result.error.issues, data), applied, TOPOLOGY_PREFIX));
  issues.push(...placeIssues(source, checkEnvironmentReferences(data, TOPOLOGY_PREFIX), applied, TOPOLOGY_PREFIX));
  return result.success && issues.length === 0 ? { topology: result.data, issues } : { issues };
}

/** placeIssues gives path issues their file, line and column; a value written by --set points where it landed and names it. */
function placeIssues(source: YamlSource, problems: readonly PathIssue[], applied: readonly AppliedOverride[], prefix: readonly PathSegment[] = []): ProfileIssue[] {
  return problems.map((problem) => {
    const via = overrideFor(applied, problem.path);
    const position = via ? via.at : locate(source, problem.path, problem.anchor);
    return {
      file: source.file,
      ...position,
      path: formatPath([...prefix, ...problem.path]),
      message: via ? `${problem.message} (from --set ${redactOverride(via.text)})` : problem.message,
      hint: problem.hint,
    };
  });
}

/** overrideIssue reports an override that could not be applied; a malformed one has no place in the file. */
function overrideIssue(file: string, text: string, problem: string, at: readonly PathSegment[] = [], position: Position = { line: 0, column: 0 }): ProfileIssue {
  return {
    file,
    ...position,
    path: formatPath(at),
    message: `${problem} (from --set ${redactOverride(text)})`,
    hint: "write --set path=value, e.g. --set phases[0].rate=2000 or --set 'slo.latency=[{percentile: 99, max: 50ms}]'",
  };
}

function readFailure(error: unknown): string {
  if (error instanceof InputFileError) return error.reason;
  throw error;
}

/** orderIssues drops duplicates and sorts by file (profile first), then line and column. */
function orderIssues(issues: readonly ProfileIssue[], files: readonly (string | undefined)[]): ProfileIssue[] {
  const seen = new Set<string>();
  const unique = issues.filter((i) => {
    const key = `${i.file}\0${i.path}\0${i.message}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
  const rank = (file: string): number => {
    const index = files.indexOf(file);
    return index < 0 ? files.length : index;
  };
  return unique.sort((a, b) => rank(a.file) - rank(b.file) || a.line - b.line || a.column - b.column);
}
