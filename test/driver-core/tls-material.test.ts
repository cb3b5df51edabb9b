import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTlsMaterial, tlsFailureReason } from '../../src/driver/http/tls.ts';
import { ProfileError } from '../../src/profile/issues.ts';
import type { HttpTarget } from '../../src/profile/protocols/http/spec.ts';
import { parseTarget } from '../../src/profile/protocols/registry.ts';
import { makeProfile } from '../helpers/profile.ts';
import { makeTestPki, type TestPki } from '../helpers/tls.ts';

const dir = mkdtempSync(join(tmpdir(), 'stampede-tls-material-'));
let pki: TestPki;
beforeAll(async () => {
  pki = await makeTestPki(dir);
  writeFileSync(join(dir, 'garbage.pem'), 'not a certificate\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const target = (text: string) => parseTarget(text) as HttpTarget;
/** A profile as if loaded from `dir/profile.yaml`, so relative TLS paths resolve against `dir`. */
const profileWith = (tls: Record<string, unknown>) => ({
  ...makeProfile({ name: 't', phases: [{ type: 'steady', rate: 1, duration: 1 }], http: { tls } } as never),
  source: { file: join(dir, 'profile.yaml'), sha256: '', overrides: [] },
});

describe('loadTlsMaterial (the http.tls section as node:tls options)', () => {
  it('has nothing for http:// and verifies certificates by default for https://', () => {
    expect(loadTlsMaterial(target('http://127.0.0.1:8080'), profileWith({}))).toBeUndefined();
    expect(loadTlsMaterial(target('https://127.0.0.1:8443'), profileWith({}))).toEqual({ options: { rejectUnauthorized: true }, verified: true });
  });

  it('sends the host as SNI, except an IP address, unless servername says otherwise', () => {
    expect(loadTlsMaterial(target('https://api.example.test'), profileWith({}))!.options.servername).toBe('api.example.test');
    expect(loadTlsMaterial(target('https://[::1]:8443'), profileWith({}))!.options).not.toHaveProperty('servername');
    expect(loadTlsMaterial(target('https://127.0.0.1:8443'), profileWith({ servername: 'api.internal' }))!.options.servername).toBe('api.internal');
  });

  it('reads files relative to the profile, and turns verification off only with insecure: true', () => {
    const material = loadTlsMaterial(target('https://127.0.0.1:8443'), profileWith({ ca: 'ca.pem', insecure: true }))!;
    expect(material.options.ca?.toString()).toBe(pki.caCert);
    expect(material.options.rejectUnauthorized).toBe(false);
    expect(material.verified).toBe(false);
  });

  it('names the field, the resolved path and the folder paths are relative to when a file cannot be read', () => {
    const read = () => loadTlsMaterial(target('https://127.0.0.1:8443'), profileWith({ cert: 'certs/client.pem', key: 'certs/client-key.pem' }));
    expect(read).toThrow(ProfileError);
    expect(read).toThrow(`http.tls.cert: cannot read ${join(dir, 'certs/client.pem')}: no such file`);
    expect(read).toThrow(`the path is relative to the profile's directory (${dir})`);
  });

  it('takes a client certificate with its own key', () => {
    const material = loadTlsMaterial(target('https://127.0.0.1:8443'), profileWith({ ca: 'ca.pem', cert: 'client.pem', key: 'client-key.pem' }))!;
    expect(material.options.cert).toBeInstanceOf(Buffer);
    expect(material.options.key).toBeInstanceOf(Buffer);
  });

  // Each of these ended as an internal error (exit 70) at the first dial; now a ProfileError (exit 2) naming the field and the file.
  it.each([
    ['a CA file with no certificate', { ca: 'garbage.pem' }, 'http.tls.ca: ', 'garbage.pem holds no PEM certificate'],
    [
      'a garbage client certificate',
      { cert: 'garbage.pem', key: 'client-key.pem' },
      'http.tls.cert: ',
      'garbage.pem is not a PEM certificate (error:0480006C:PEM routines::no start line)',
    ],
    ['a garbage key', { cert: 'client.pem', key: 'garbage.pem' }, 'http.tls.key: ', 'garbage.pem is not a PEM private key'],
    ['a certificate given as the key', { cert: 'client.pem', key: 'client.pem' }, 'http.tls.key: ', 'client.pem is not a PEM private key'],
    [
      'a key that is not the certificate’s',
      { cert: 'wrong-ca.pem', key: 'client-key.pem' },
      'http.tls.key: ',
      `client-key.pem is not the key of the certificate ${join(dir, 'wrong-ca.pem')} (`,
    ],
  ])('refuses %s', (_what, tls, field, message) => {
    const read = () => loadTlsMaterial(target('https://127.0.0.1:8443'), profileWith(tls));
    expect(read).toThrow(ProfileError);
    expect(read).toThrow(field);
    expect(read).toThrow(message);
  });
});

describe('tlsFailureReason', () => {
  it.each([
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls_error'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls_error'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls_error'],
    ['ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'tls_error'],
    ['CERT_HAS_EXPIRED', 'tls_error'],
    ['ECONNRESET', undefined],
    ['closed', undefined],
  ])('%s → %s', (code, reason) => {
    expect(tlsFailureReason(code)).toBe(reason);
  });
});
