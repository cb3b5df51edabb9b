import { ProfileError, type PathSegment, type ProfileIssue, formatPath } from './issues.ts';
import type { HttpSettings } from './schema.ts';
import type { Profile } from './types.ts';

/*
 * Secrets in request templates. `${NAME}` in an http request's path, header values or body is read
 * from the environment when a run starts, never when a profile is loaded: the profile (and its
 * profile.json) keeps the reference, `validate` and `lint` need no secret, and only the driver sees
 * the value. Every resolved value, and the value of every sensitive header (SENSITIVE_HEADER_*), is
 * a secret of the run: the run folder's writer and the terminal replace it with [redacted].
 */

/** `${NAME}`: an environment variable's name; group 1 is the name. Global: use with matchAll or replace. */
export const SECRET_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `${` not followed by a valid reference: a typo that would otherwise be sent as is. */
export const MALFORMED_REFERENCE = /\$\{(?![A-Za-z_][A-Za-z0-9_]*\})/;

/** What stands in for a secret in every artifact. */
export const REDACTED = '[redacted]';

/**
 * A resolved value shorter than this is refused: every artifact is scrubbed of each secret's text,
 * and a shorter one would also match inside numbers and encoded histograms, mangling them.
 */
export const MIN_SECRET_LENGTH = 6;

/** Headers whose value is a credential, redacted wherever the profile is written (lower case). */
export const SENSITIVE_HEADER_NAMES = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key'] as const;
/** Any header whose name contains one of these is sensitive too (x-auth-token, x-session-id, x-client-secret…). */
export const SENSITIVE_HEADER_PARTS = ['auth', 'token', 'secret', 'key', 'password', 'credential', 'session', 'cookie'] as const;

export function isSensitiveHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return (SENSITIVE_HEADER_NAMES as readonly string[]).includes(lower) || SENSITIVE_HEADER_PARTS.some((part) => lower.includes(part));
}

/** Where one `${NAME}` is used: the field (`http.requests.get.headers.authorization`) and its place in the profile file. */
export interface SecretReference {
  variable: string;
  field: string;
  line: number;
  column: number;
}

/** Every template field that may carry `${NAME}`, with its path in the profile. */
export function templateFields(requests: HttpSettings['requests']): { path: PathSegment[]; text: string }[] {
  return Object.entries(requests).flatMap(([kind, t]) => [
    { path: ['http', 'requests', kind, 'path'], text: t.path },
    ...Object.entries(t.headers).map(([name, value]) => ({ path: ['http', 'requests', kind, 'headers', name], text: value })),
    ...(t.body === undefined ? [] : [{ path: ['http', 'requests', kind, 'body'], text: t.body }]),
  ]);
}

/** The `${NAME}` references of a profile's templates; `place` gives each field's line and column in the profile file. */
export function findSecretReferences(requests: HttpSettings['requests'], place: (path: PathSegment[]) => { line: number; column: number }): SecretReference[] {
  return templateFields(requests).flatMap(({ path, text }) =>
    [...text.matchAll(SECRET_REFERENCE)].map((match) => ({ variable: match[1]!, field: formatPath(path), ...place(path) })),
  );
}

/** An environment to read `${NAME}` from (the CLI passes process.env). */
export type SecretEnvironment = Readonly<Record<string, string | undefined>>;

export interface ResolvedSecrets {
  /** The profile with every reference replaced by its value: for the driver only, never written. */
  profile: Profile;
  /** Every resolved value and every sensitive header's value: what the artifacts must not contain. */
  secrets: string[];
}

/**
 * The profile as the driver sends it: each `${NAME}` replaced by the variable's value (URL-encoded
 * in a path, as is in headers and the body). @throws ProfileError naming each missing or unusable
 * variable, the field it is used in and its line in the profile file.
 */
export function resolveSecrets(profile: Profile, env: SecretEnvironment): ResolvedSecrets {
  const references = profile.source.secrets ?? [];
  const issues = references.flatMap((reference) => valueIssues(profile.source.file, reference, env[reference.variable]));
  if (issues.length > 0) throw new ProfileError(profile.source.file, issues);
  const value = (name: string) => env[name]!;
  const requests = Object.fromEntries(
    Object.entries(profile.http.requests).map(([kind, t]) => [
      kind,
      {
        ...t,
        path: t.path.replace(SECRET_REFERENCE, (_, name: string) => encodeURIComponent(value(name))),
        headers: Object.fromEntries(Object.entries(t.headers).map(([name, text]) => [name, text.replace(SECRET_REFERENCE, (_, v: string) => value(v))])),
        ...(t.body !== undefined && { body: t.body.replace(SECRET_REFERENCE, (_, name: string) => value(name)) }),
      },
    ]),
  ) as HttpSettings['requests'];
  const resolved = { ...profile, http: { ...profile.http, requests } };
  const used = references.map((r) => value(r.variable));
  return { profile: resolved, secrets: [...new Set([...used, ...sensitiveHeaderValues(resolved)])] };
}

function valueIssues(file: string, reference: SecretReference, value: string | undefined): ProfileIssue[] {
  const name = reference.variable;
  const at = { file, line: reference.line, column: reference.column, path: reference.field };
  if (value === undefined || value === '')
    return [
      { ...at, message: `environment variable ${name} is not set`, hint: `set it where the run starts, e.g. ${name}=… npx stampede run …; \${${name}} is read when a run starts` },
    ];
  if (/[\r\n\0]/.test(value))
    return [
      { ...at, message: `environment variable ${name} holds a line break or NUL`, hint: 'a request line or header cannot carry one: it would end the line (request splitting)' },
    ];
  if (value.includes('{{'))
    return [{ ...at, message: `environment variable ${name} holds "{{"`, hint: `the value would be read as a template placeholder; \${NAME} is for secrets, not templates` }];
  if (value.length < MIN_SECRET_LENGTH)
    return [
      {
        ...at,
        message: `environment variable ${name} is ${value.length} character${value.length === 1 ? '' : 's'} long; a secret must have at least ${MIN_SECRET_LENGTH}`,
        hint: `\${${name}} values are redacted from every artifact, and one this short would also match inside other text; write a value that is no secret in the profile itself`,
      },
    ];
  return [];
}

/** Values of sensitive headers long enough to be scrubbed from text (shorter ones are redacted where the profile is written). */
export function sensitiveHeaderValues(profile: Profile): string[] {
  return Object.values(profile.http.requests).flatMap((t) =>
    Object.entries(t.headers).flatMap(([name, value]) => (isSensitiveHeader(name) && value.length >= MIN_SECRET_LENGTH ? [value] : [])),
  );
}

/**
 * The profile as it may be written (profile.json): every sensitive header's value is [redacted],
 * and so is the value of a `--set` override that wrote one. `${NAME}` elsewhere stays: it is a name.
 */
export function redactProfile(profile: Profile): Profile {
  const requests = Object.fromEntries(
    Object.entries(profile.http.requests).map(([kind, t]) => [
      kind,
      { ...t, headers: Object.fromEntries(Object.entries(t.headers).map(([name, value]) => [name, isSensitiveHeader(name) ? REDACTED : value])) },
    ]),
  ) as HttpSettings['requests'];
  const overrides = profile.source.overrides.map(redactOverride);
  return { ...profile, http: { ...profile.http, requests }, source: { ...profile.source, overrides } };
}

/** `http.requests.get.headers.authorization=Bearer x` → `…authorization=[redacted]`. */
export function redactOverride(text: string): string {
  const match = /^([^=]*\bheaders\b[^=]*)=/.exec(text);
  if (!match) return text;
  const last =
    match[1]!
      .trim()
      .split(/[.[\]'"]+/)
      .filter(Boolean)
      .at(-1) ?? '';
  const headersPath = /\bheaders\s*$/.test(match[1]!.trim());
  return isSensitiveHeader(last) || headersPath ? `${match[1]}=${REDACTED}` : text;
}
