import { describe, expect, it } from 'vitest';
import { parseProfileText } from '../../src/profile/load.ts';
import { redactOverride, redactProfile } from '../../src/profile/redaction.ts';
import { holdsSecret, isSensitiveHeader } from '../../src/profile/secret-fields.ts';
import { resolveSecrets } from '../../src/profile/secrets.ts';
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
    const sent = resolveSecrets(profile, { TOKEN: 'abcdef123', SIG: 'a b/c+d' });
    expect(sent.http.requests.default!.path).toBe('/x?sig=a%20b%2Fc%2Bd');
    expect(sent.http.requests.default!.headers.authorization).toBe('Bearer abcdef123');
    // The loaded profile keeps the references: it is what is written.
    expect(profile.http.requests.default!.headers.authorization).toBe('Bearer ${TOKEN}');
  });

  it('refuses a missing, placeholder-like or (in a header) multi-line value, naming the variable, field and line', async () => {
    const profile = await parseProfileText(profileText('{ a: "${A}", b: "${B}", c: "${C}" }'), 'p.yaml');
    const issues = await issuesOf(Promise.resolve().then(() => resolveSecrets(profile, { B: 'line\r\nX: y', C: 'xx{{key}}' })));
    expect(issues.map((i) => `${i.file}:${i.line}:${i.column} ${i.path}: ${i.message}`)).toEqual([
      'p.yaml:8:21 http.requests.default.headers.a: environment variable A is not set',
      'p.yaml:8:32 http.requests.default.headers.b: environment variable B holds a line break or NUL',
      'p.yaml:8:43 http.requests.default.headers.c: environment variable C holds "{{"',
    ]);
  });

  it('takes any value nothing would misread, however short or common: a line break is URL-encoded in a path and sent as is in a body', async () => {
    const text = `${profileText('{ authorization: "${T}" }', '/x?q=${T}')}      body: "[${'${T}'}]"\n`;
    const profile = await parseProfileText(text, 'p.yaml');
    for (const value of ['0', '{', '"', ' '.repeat(8), 'stampede', '\\n']) expect(resolveSecrets(profile, { T: value }).http.requests.default!.headers.authorization).toBe(value);
    const body = await parseProfileText(`${profileText('{}', '/x?q=${T}')}      body: "[${'${T}'}]"\n`, 'p.yaml');
    const sent = resolveSecrets(body, { T: 'a\nb' }).http.requests.default!;
    expect([sent.path, sent.body]).toEqual(['/x?q=a%0Ab', '[a\nb]']);
  });

  it('a malformed reference is a profile error, not text sent as written', async () => {
    const issues = await issuesOf(parseProfileText(profileText('{ x-api-key: "${api-key}" }'), 'p.yaml'));
    expect(issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      "http.requests.default.headers.x-api-key: expected ${NAME} (an environment variable: letters, digits, _), got a string (not shown: it is a secret's field)",
    ]);
    const plain = await issuesOf(parseProfileText(profileText('{ x-trace: "${trace-id}" }'), 'p.yaml'));
    expect(plain.map((i) => i.message)).toEqual(['expected ${NAME} (an environment variable: letters, digits, _), got "${trace-id}"']);
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
  });

  it('knows a secret by where it is, never by its text', () => {
    const cases: [string, string][] = [
      ['http.requests.default.headers.authorization=Bearer 0', 'http.requests.default.headers.authorization=[redacted]'],
      ['http.requests.default.headers={authorization: x}', 'http.requests.default.headers=[redacted]'],
      ['http.requests.get={path: /, headers: {x-api-key: k}}', 'http.requests.get=[redacted]'],
      ["http={requests: {get: {headers: {Cookie: 'a=b'}}}}", 'http=[redacted]'],
      // Not YAML, or no readable path: where it lands is unknown, so it may be a secret.
      ['http.requests.get.headers.authorization=[oops', 'http.requests.get.headers.authorization=[redacted]'],
      ['http.requests.get.headers=[oops', 'http.requests.get.headers=[redacted]'],
      ['http.requests[get.headers.authorization=x', 'http.requests[get.headers.authorization=[redacted]'],
      // A name, a header that is no credential, another field: as given.
      ['http.requests.get.headers.accept=stampede', 'http.requests.get.headers.accept=stampede'],
      ['http.requests.get={path: /x, headers: {accept: "*/*"}}', 'http.requests.get={path: /x, headers: {accept: "*/*"}}'],
      ['http.requests.get.headers.accept=[oops', 'http.requests.get.headers.accept=[oops'],
      ['phases[0].rate=5', 'phases[0].rate=5'],
      ['name=stampede', 'name=stampede'],
    ];
    for (const [given, written] of cases) expect([given, redactOverride(given)]).toEqual([given, written]);
    expect(holdsSecret(['http', 'requests', 'get', 'headers'], 'Bearer x')).toBe(true);
    expect(holdsSecret(['http', 'requests', 'get', 'path'], '/x')).toBe(false);
  });

  it('a message about a secret field names its kind, not its value; one about another field quotes it', async () => {
    const secret = '918273645546372819';
    const issues = await issuesOf(
      parseProfileText(profileText('{ accept: 42 }'), 'p.yaml', [`http.requests.default.headers.authorization=${secret}`, 'http.requests.default.headers.x-session=[bad']),
    );
    const printed = issues.map((i) => `${i.path}: ${i.message}`);
    expect(printed.join('\n')).not.toContain(secret);
    expect(printed).toContain(
      "http.requests.default.headers.authorization: expected text, got a number (not shown: it is a secret's field) (from --set http.requests.default.headers.authorization=[redacted])",
    );
    expect(printed.some((line) => line.endsWith('(from --set http.requests.default.headers.x-session=[redacted])'))).toBe(true);
    expect(printed).toContain('http.requests.default.headers.accept: expected text, got 42');
    const unread = await issuesOf(
      parseProfileText(profileText('{ cookie: "sid=s3cr3t-c" }'), 'p.yaml', [
        'http.requests.default.headers.authorization=| s3cr3t-q',
        'http.requests.default.headers.cookie.x=1',
        'http.requests.default.headers.authorization:Bearer-s3cr3t-t',
        'http.requests.default.headers.accept=| plain',
      ]),
    );
    expect(unread.map((i) => i.message)).toEqual([
      'expected a YAML value after "=" (not shown: it is a secret\'s field) (from --set http.requests.default.headers.authorization=[redacted])',
      'expected path=value (no "=") (from --set [redacted])',
      'expected a YAML value after "=", got a syntax error: Not a YAML token: plain (from --set http.requests.default.headers.accept=| plain)',
      'http.requests.default.headers.cookie is a string (not shown: it is a secret\'s field), not a mapping or a list, so it has no "x" (from --set http.requests.default.headers.cookie.x=[redacted])',
    ]);
    const lines = await issuesOf(parseProfileText(profileText('{ authorization: "Bearer s3cr3t\\nX: y", accept: "a\\nb" }'), 'p.yaml'));
    expect(lines.map((i) => i.message)).toEqual([
      "expected no CR, LF or NUL in header authorization, got a string (not shown: it is a secret's field)",
      'expected no CR, LF or NUL in header accept, got "a\\nb"',
    ]);
  });
});
