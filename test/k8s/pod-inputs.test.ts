import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { carriedFiles, configMapData } from '../../src/k8s/carried-files.ts';
import { jobLifetime } from '../../src/k8s/lifetime.ts';
import { literalArg } from '../../src/k8s/pod-layout.ts';
import { podSecrets, refuseLiteralCredentials } from '../../src/k8s/pod-secrets.ts';
import { ProfileError } from '../../src/profile/issues.ts';
import { loadProfile } from '../../src/profile/load.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-k8s-inputs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A profile file in its own folder, with the files it names beside it. */
async function profileWith(name: string, body: string, files: Record<string, string | Buffer> = {}, overrides: string[] = []) {
  const dir = join(scratch, name, 'profiles');
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), content);
  }
  const file = join(dir, 'p.yaml');
  writeFileSync(file, `name: ${name}\nphases: [{ type: steady, rate: 10, duration: 1m }]\n${body}`);
  return loadProfile(file, overrides);
}

describe('what a pod of the Job reads, and from where', () => {
  it('mounts each file the profile names where the pod resolves its reference, a PEM used twice once', async () => {
    const profile = await profileWith(
      'files',
      'keys: { file: ../samples/keys.csv }\ntarget: https://127.0.0.1:8443\nhttp: { tls: { ca: /etc/ssl/ca.pem, cert: tls/both.pem, key: tls/both.pem } }\n',
      {
        '../samples/keys.csv': 'key\na\nb\n',
      },
    );
    const files = carriedFiles(profile, true);
    expect(files.map((f) => [f.key, f.store, f.podPath])).toEqual([
      ['keys.file', 'configMap', '/etc/samples/keys.csv'],
      ['http.tls.ca', 'tlsSecret', '/etc/ssl/ca.pem'],
      ['http.tls.cert', 'tlsSecret', '/etc/stampede/tls/both.pem'],
    ]);
    // An http:// run never reads its TLS files: they are not carried.
    expect(carriedFiles(profile, false).map((f) => f.key)).toEqual(['keys.file']);
    expect(configMapData(profile, 'name: files\n', files).data).toEqual({ 'profile.yaml': 'name: files\n', 'keys.file': 'key\na\nb\n' });
  });

  it('carries a key file that is not UTF-8 as binaryData, and refuses one too big for a ConfigMap, or one that would land on the results', async () => {
    const latin1 = Buffer.from('key\ncaf\xe9\n', 'latin1');
    const binary = await profileWith('latin1', 'keys: { file: keys.csv }\n', { 'keys.csv': latin1 });
    expect(configMapData(binary, 'x', carriedFiles(binary, false)).binaryData).toEqual({ 'keys.file': latin1.toString('base64') });
    const big = await profileWith('big', 'keys: { file: keys.csv }\n', { 'keys.csv': `key\n${Array.from({ length: 70_000 }, (_, i) => `key-number-${i}`).join('\n')}\n` });
    expect(() => configMapData(big, 'x', carriedFiles(big, false))).toThrow(/keys\.file: the profile and its key file are 1\.\d MiB, more than the 1 MiB a ConfigMap holds/);
    const onResults = await profileWith('on-results', 'keys: { count: 1 }\n');
    expect(() => carriedFiles({ ...onResults, keys: { ...onResults.keys, file: '/results/keys.csv', sample: { path: 'x', sha256: '', keys: ['a'] } } }, false)).toThrow(
      /would be read in the pods at \/results\/keys\.csv, where the results volume is mounted/,
    );
  });

  it('gives each ${NAME} and each secret --set from the Secret, by name; other --set as written', async () => {
    const profile = await profileWith(
      'secrets',
      'target: http://127.0.0.1:8080\nhttp: { requests: { default: { path: "/k/{{key}}?sig=${SIG}", headers: { authorization: "Bearer ${TOKEN}", x-trace: "${TOKEN}" } } } }\nkeys: { count: 10 }\n',
    );
    const overrides = ['http.requests.default.headers.cookie=id=42', 'seed=7', 'description=$HOME'];
    const secrets = podSecrets(profile, overrides, 'job-secrets');
    expect(secrets.keys.map((k) => k.key)).toEqual(['SIG', 'TOKEN', 'SET_VALUE_1']);
    expect(secrets.keys[1]!.what).toBe('${TOKEN} in http.requests.default.headers.authorization, http.requests.default.headers.x-trace');
    expect(secrets.env[0]).toEqual({ name: 'SIG', valueFrom: { secretKeyRef: { name: 'job-secrets', key: 'SIG' } } });
    expect(secrets.overrides).toEqual(['http.requests.default.headers.cookie=$(SET_VALUE_1)', 'seed=7', 'description=$$HOME']);
    expect(JSON.stringify(secrets)).not.toContain('id=42');
  });

  it('refuses a credential written into the profile, and a ${NAME} the pods use for themselves', async () => {
    const literal = await profileWith(
      'literal',
      'target: http://127.0.0.1:8080\nhttp: { requests: { default: { headers: { authorization: "Bearer abc" } } } }\nkeys: { count: 10 }\n',
    );
    expect(() => refuseLiteralCredentials(literal, 'http: { requests: { default: { headers: { authorization: "Bearer abc" } } } }\n')).toThrow(ProfileError);
    const reserved = await profileWith('reserved', 'target: http://127.0.0.1:8080\nhttp: { requests: { default: { headers: { x-run: "${JOB_UID}" } } } }\nkeys: { count: 10 }\n');
    expect(() => podSecrets(reserved, [], 's')).toThrow(/\$\{JOB_UID\} is a name the pods use for themselves/);
  });

  it('sets the Job’s deadline from the run’s length and keeps a finished Job between an hour and half a day', async () => {
    const short = await profileWith('short', 'keys: { count: 10 }\n');
    expect(jobLifetime(short, { timeoutMs: 600_000, leadMs: 10_000 })).toEqual({ activeDeadlineSeconds: 600 + 610 + 60 + 300, ttlSecondsAfterFinished: 3600 });
    const long = await profileWith('long', 'keys: { count: 10 }\n', {}, ['phases[0].duration=20h']);
    expect(jobLifetime(long, { timeoutMs: 600_000, leadMs: 10_000 })).toEqual({ activeDeadlineSeconds: 600 + 610 + 72_000 + 7200, ttlSecondsAfterFinished: 12 * 3600 });
  });

  it('passes a literal argument through the kubelet’s $(NAME) expansion unchanged', () => {
    expect(literalArg('a$b $(X) $$')).toBe('a$$b $$(X) $$$$');
  });
});
