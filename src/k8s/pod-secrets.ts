import type { EnvVar } from 'kubernetes-types/core/v1.js';
import { parse } from 'yaml';
import { ProfileError } from '../profile/issues.ts';
import { overrideHoldsSecret } from '../profile/redaction.ts';
import { isSensitiveHeader } from '../profile/secret-fields.ts';
import { SECRET_REFERENCE, type SecretReference } from '../profile/secrets.ts';
import type { Profile } from '../profile/types.ts';
import { profileIssue } from './issues.ts';
import { INDEX_VARIABLE, literalArg, RUN_ID_VARIABLE } from './pod-layout.ts';

/*
 * The secrets of a profile, as the pods get them: from a Kubernetes Secret the user creates, by
 * name, never by value. Each `${NAME}` of the request templates is an environment variable of the
 * container read from the Secret's key NAME (secretKeyRef), as `run` reads it from its own
 * environment here. A `--set` that writes a secret field (secret-fields.ts) reaches the pods as
 * `path=$(SET_VALUE_n)`, which the kubelet expands from the Secret's key SET_VALUE_n when it starts
 * the container: the API object and this manifest hold the name, the pod's stampede the value.
 */

export interface SecretKey {
  key: string;
  /** What it holds, for the manifest's header: where the profile uses it. */
  what: string;
}

export interface PodSecrets {
  env: EnvVar[];
  /** The `--set` values the pods get, in order (arguments as the kubelet reads them). */
  overrides: string[];
  /** What the Secret must hold; empty when the profile uses none. */
  keys: SecretKey[];
}

const SET_VALUE = 'SET_VALUE_';

export function podSecrets(profile: Profile, overrides: readonly string[], secretName: string): PodSecrets {
  const keys: SecretKey[] = [];
  for (const reference of profile.source.secrets ?? []) {
    refuseReserved(profile, reference);
    const known = keys.find((k) => k.key === reference.variable);
    if (known) known.what += `, ${reference.field}`;
    else keys.push({ key: reference.variable, what: `\${${reference.variable}} in ${reference.field}` });
  }
  const podOverrides = overrides.map((text, i) => {
    if (!overrideHoldsSecret(text)) return literalArg(text);
    const key = `${SET_VALUE}${i + 1}`;
    const path = text.slice(0, text.indexOf('=')).trim();
    keys.push({ key, what: `the value you gave --set ${path}` });
    return `${literalArg(path)}=$(${key})`;
  });
  const env = keys.map(({ key }) => ({ name: key, valueFrom: { secretKeyRef: { name: secretName, key } } }));
  return { env, overrides: podOverrides, keys };
}

/**
 * The profile text goes into a ConfigMap, readable by whoever may read the namespace and kept in
 * Git with the manifest: a credential written into it as is would go there too.
 * @throws ProfileError naming the first sensitive header whose value is a literal, not a `${NAME}`
 */
export function refuseLiteralCredentials(profile: Profile, profileText: string): void {
  const requests = (parse(profileText) as { http?: { requests?: Record<string, { headers?: Record<string, unknown> } | null> } } | null)?.http?.requests ?? {};
  for (const [kind, template] of Object.entries(requests)) {
    for (const [name, value] of Object.entries(template?.headers ?? {})) {
      const empty = value === null || value === '';
      if (!isSensitiveHeader(name) || empty || (typeof value === 'string' && new RegExp(SECRET_REFERENCE.source).test(value))) continue;
      throw profileIssue(
        profile,
        ['http', 'requests', kind, 'headers', name],
        'holds a credential as written (not shown): the manifest would carry it in a ConfigMap',
        `write it as \${NAME} (e.g. "Bearer \${API_TOKEN}") and put the value in the Secret the manifest names`,
      );
    }
  }
}

/** Variables the pod's stampede has already, or reads as options (STAMPEDE_*): a Secret's key of that name would replace them. */
function refuseReserved(profile: Profile, reference: SecretReference): void {
  const name = reference.variable;
  const reserved = name === RUN_ID_VARIABLE || name === INDEX_VARIABLE || name.startsWith(SET_VALUE) || name.startsWith('STAMPEDE_');
  if (!reserved) return;
  const file = profile.source.file;
  throw new ProfileError(file, [
    {
      file,
      line: reference.line,
      column: reference.column,
      path: reference.field,
      message: `\${${name}} is a name the pods use for themselves (${RUN_ID_VARIABLE}, ${INDEX_VARIABLE}, ${SET_VALUE}n, STAMPEDE_*)`,
      hint: 'give the secret another name',
    },
  ]);
}
