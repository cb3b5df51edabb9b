import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTlsMaterial, tlsFailureReason } from '../../src/driver/http/tls.ts';
import { ProfileError } from '../../src/profile/issues.ts';
import { parseTarget, type HttpTarget } from '../../src/profile/target.ts';
import { makeProfile } from '../helpers/profile.ts';

const dir = mkdtempSync(join(tmpdir(), 'stampede-tls-material-'));
writeFileSync(join(dir, 'ca.pem'), 'the CA');
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
    expect(material.options.ca?.toString()).toBe('the CA');
    expect(material.options.rejectUnauthorized).toBe(false);
    expect(material.verified).toBe(false);
  });

  it('names the field, the resolved path and the folder paths are relative to when a file cannot be read', () => {
    const read = () => loadTlsMaterial(target('https://127.0.0.1:8443'), profileWith({ cert: 'certs/client.pem', key: 'certs/client-key.pem' }));
    expect(read).toThrow(ProfileError);
    expect(read).toThrow(`http.tls.cert: cannot read ${join(dir, 'certs/client.pem')} (ENOENT)`);
    expect(read).toThrow(`the path is relative to the profile's directory (${dir})`);
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
