import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { ProfileError, type ProfileIssue } from '../../src/profile/index.ts';

/** Absolute directory of the profile fixtures; issues name files by the path they were loaded with. */
export const FIXTURES = fileURLToPath(new URL('../fixtures/profiles/', import.meta.url));
export const fixture = (name: string): string => path.join(FIXTURES, name);

/** The minimal valid topology the model engineer keeps valid, as profile YAML. */
export const INLINE_TOPOLOGY = `topology:
  entry: api
  services:
    api:
      workers: 8
      serviceTime: { type: exponential, mean: 1ms }
`;

/** Awaits a load that must fail and returns its issues. */
export async function issuesOf(loading: Promise<unknown>): Promise<readonly ProfileIssue[]> {
  const error = await loading.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProfileError);
  return (error as ProfileError).issues;
}

/** The issue at `path`, failing the test with the full list when there is none. */
export function issueAt(issues: readonly ProfileIssue[], issuePath: string): ProfileIssue {
  const found = issues.find((i) => i.path === issuePath);
  expect(found, `no issue at ${issuePath}; got ${JSON.stringify(issues, null, 2)}`).toBeDefined();
  return found!;
}
