import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/**
 * Certificates made for a test: a CA, a server certificate it signed for 127.0.0.1 and the name
 * api.test, a client certificate it signed, and an unrelated CA (a wrong one to trust). EC keys,
 * so making them takes milliseconds. PEM files are written to `dir` for the profile's http.tls.
 */
export interface TestPki {
  caCert: string;
  server: { key: string; cert: string };
  /** Signed by the unrelated CA: what a server presents after a botched certificate rotation. */
  strangerServer: { key: string; cert: string };
  files: { ca: string; wrongCa: string; clientCert: string; clientKey: string };
}

const EC = { keyType: 'ec', algorithm: 'sha256' } as const;

export async function makeTestPki(dir: string): Promise<TestPki> {
  const ca = await makeCa('stampede test CA');
  const stranger = await makeCa('some other CA');
  const server = await leaf('api.test', ca, { serverAuth: true }, [
    { type: 2, value: 'api.test' },
    { type: 7, ip: '127.0.0.1' },
  ]);
  const strangerServer = await leaf('api.test', stranger, { serverAuth: true }, [
    { type: 2, value: 'api.test' },
    { type: 7, ip: '127.0.0.1' },
  ]);
  const client = await leaf('stampede client', ca, { clientAuth: true }, [{ type: 2, value: 'client.test' }]);
  const files = { ca: join(dir, 'ca.pem'), wrongCa: join(dir, 'wrong-ca.pem'), clientCert: join(dir, 'client.pem'), clientKey: join(dir, 'client-key.pem') };
  writeFileSync(files.ca, ca.cert);
  writeFileSync(files.wrongCa, stranger.cert);
  writeFileSync(files.clientCert, client.cert);
  writeFileSync(files.clientKey, client.key);
  return { caCert: ca.cert, server, strangerServer, files };
}

interface Issued {
  key: string;
  cert: string;
}

async function makeCa(name: string): Promise<Issued> {
  const pems = await generate([{ name: 'commonName', value: name }], {
    ...EC,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

async function leaf(name: string, ca: Issued, usage: { serverAuth?: boolean; clientAuth?: boolean }, altNames: { type: 2 | 7; value?: string; ip?: string }[]): Promise<Issued> {
  const pems = await generate([{ name: 'commonName', value: name }], {
    ...EC,
    ca,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', ...usage },
      { name: 'subjectAltName', altNames },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}
