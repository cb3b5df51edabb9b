import { ProfileError, type PathSegment, type ProfileIssue, formatPath } from './issues.ts';
import type { HttpSettings } from './protocols/http/section.ts';
import type { Profile } from './types.ts';

/*
 * Secrets in request templates. `${NAME}` in an http request's path, header values or body is read
 * from the environment when a run starts, never when a profile is loaded: the profile (and its
 * profile.json) keeps the reference, `validate` and `lint` need no secret, and only the driver sees
 * the value. Nothing written ever holds a resolved value, so none has to be searched for in the
 * output; what the profile itself holds (sensitive headers) is redacted by structure (secret-fields.ts).
 */

/** `${NAME}`: an environment variable's name; group 1 is the name. Global: use with matchAll or replace. */
export const SECRET_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `${` not followed by a valid reference: a typo that would otherwise be sent as is. */
export const MALFORMED_REFERENCE = /\$\{(?![A-Za-z_][A-Za-z0-9_]*\})/;

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

/**
 * The profile as the driver sends it, for the driver only (never written): each `${NAME}` replaced
 * by the variable's value (URL-encoded in a path, as is in headers and the body). @throws
 * ProfileError naming each missing or unusable variable, the field it is used in and its line in
 * the profile file.
 */
export function resolveSecrets(profile: Profile, env: SecretEnvironment): Profile {
  const references = profile.source.secrets ?? [];
  const headers = new Set(templateFields(profile.http.requests).flatMap(({ path }) => (path[3] === 'headers' ? [formatPath(path)] : [])));
  const issues = references.flatMap((reference) => valueIssues(profile.source.file, reference, env[reference.variable], headers.has(reference.field)));
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
  return { ...profile, http: { ...profile.http, requests } };
}

/** A header is one line: a line break or NUL in its value would end it. A path is URL-encoded and a body is sent as is: any value fits. */
function valueIssues(file: string, reference: SecretReference, value: string | undefined, inHeader: boolean): ProfileIssue[] {
  const name = reference.variable;
  const at = { file, line: reference.line, column: reference.column, path: reference.field };
  if (value === undefined || value === '')
    return [
      { ...at, message: `environment variable ${name} is not set`, hint: `set it where the run starts, e.g. ${name}=… npx stampede run …; \${${name}} is read when a run starts` },
    ];
  if (inHeader && /[\r\n\0]/.test(value))
    return [{ ...at, message: `environment variable ${name} holds a line break or NUL`, hint: 'a header line cannot carry one: it would end the line (request splitting)' }];
  if (value.includes('{{'))
    return [{ ...at, message: `environment variable ${name} holds "{{"`, hint: `the value would be read as a template placeholder; \${NAME} is for secrets, not templates` }];
  return [];
}
