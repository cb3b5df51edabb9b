import { describe, expect, it } from 'vitest';
import { parseProfileText } from '../../src/profile/load.ts';
import { isSensitiveHeader, redactOverride, redactProfile, resolveSecrets } from '../../src/profile/secrets.ts';
import { addSecrets, redact } from '../../src/run-folder/redaction.ts';
import { issuesOf } from './helpers.ts';

const profileText = (headers: string, path = '/') => `name: s
target: http://127.0.0.1:8080
phases: [{ type: steady, rate: 1, duration: 1s }]
http:
  requests:
    default:
      path: "${path}"
      headers: ${headers}
`;

describe('secret references in request templates', () => {
  it('are found with their field and line, and resolved for the driver only: URL-encoded in a path, as is in a header', async () => {
    const profile = await parseProfileText(profileText('{ authorization: "Bearer ${TOKEN}" }', '/x?sig=${SIG}'), 'p.yaml');
    expect(profile.source.secrets).toEqual([
      { variable: 'SIG', field: 'http.requests.default.path', line: 7, column: 13 },
      { variable: 'TOKEN', field: 'http.requests.default.headers.authorization', line: 8, column: 33 },
    ]);
    const { profile: sent, secrets } = resolveSecrets(profile, { TOKEN: 'abcdef123', SIG: 'a b/c+d' });
    expect(sent.http.requests.default!.path).toBe('/x?sig=a%20b%2Fc%2Bd');
    expect(sent.http.requests.default!.headers.authorization).toBe('Bearer abcdef123');
    expect(secrets).toEqual(['a b/c+d', 'abcdef123', 'Bearer abcdef123']);
    // The loaded profile keeps the references: it is what is written.
    expect(profile.http.requests.default!.headers.authorization).toBe('Bearer ${TOKEN}');
  });

  it('refuses a missing, multi-line, placeholder-like or too short value, naming the variable, field and line', async () => {
    const profile = await parseProfileText(profileText('{ a: "${A}", b: "${B}", c: "${C}", d: "${D}" }'), 'p.yaml');
    const issues = await issuesOf(Promise.resolve().then(() => resolveSecrets(profile, { B: 'line\r\nX: y', C: 'xx{{key}}', D: 'short' })));
    expect(issues.map((i) => `${i.file}:${i.line}:${i.column} ${i.path}: ${i.message}`)).toEqual([
      'p.yaml:8:21 http.requests.default.headers.a: environment variable A is not set',
      'p.yaml:8:32 http.requests.default.headers.b: environment variable B holds a line break or NUL',
      'p.yaml:8:43 http.requests.default.headers.c: environment variable C holds "{{"',
      'p.yaml:8:54 http.requests.default.headers.d: environment variable D is 5 characters long; a secret must have at least 6',
    ]);
  });

  it('a malformed reference is a profile error, not text sent as written', async () => {
    const issues = await issuesOf(parseProfileText(profileText('{ x-api-key: "${api-key}" }'), 'p.yaml'));
    expect(issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'http.requests.default.headers.x-api-key: expected ${NAME} (an environment variable: letters, digits, _), got "${api-key}"',
    ]);
  });
});

describe('redaction', () => {
  it('names sensitive headers by list and by what their names contain', () => {
    for (const name of ['Authorization', 'proxy-authorization', 'Cookie', 'set-cookie', 'X-API-Key', 'api-key', 'x-auth-token', 'x-client-secret', 'x-session-id'])
      expect([name, isSensitiveHeader(name)]).toEqual([name, true]);
    for (const name of ['content-type', 'accept', 'user-agent', 'x-request-id']) expect([name, isSensitiveHeader(name)]).toEqual([name, false]);
  });

  it('writes sensitive headers and the overrides that set them as [redacted]', async () => {
    const profile = await parseProfileText(profileText('{ cookie: "sid=1", accept: "*/*" }'), 'p.yaml', ['http.requests.default.headers.x-token=abc']);
    const written = redactProfile(profile);
    expect(written.http.requests.default!.headers).toEqual({ cookie: '[redacted]', accept: '*/*', 'x-token': '[redacted]' });
    expect(written.source.overrides).toEqual(['http.requests.default.headers.x-token=[redacted]']);
    expect(redactOverride('http.requests.default.headers={authorization: x}')).toBe('http.requests.default.headers=[redacted]');
    expect(redactOverride('phases[0].rate=5')).toBe('phases[0].rate=5');
  });

  it('replaces a secret in every form a writer gives it, longest first', () => {
    addSecrets(['p@ss "word"/1', 'p@ss "word"/1 and more']);
    const text = `raw p@ss "word"/1; json ${JSON.stringify('p@ss "word"/1')}; url ${encodeURIComponent('p@ss "word"/1')}; html p@ss &quot;word&quot;/1; long p@ss "word"/1 and more`;
    expect(redact(text)).toBe('raw [redacted]; json "[redacted]"; url [redacted]; html [redacted]; long [redacted]');
  });
});
