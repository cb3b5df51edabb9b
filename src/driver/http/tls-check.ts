import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';

/*
 * The http.tls files checked as node:tls will take them, before any traffic: OpenSSL reports a
 * garbage certificate, a key that is not the certificate's or an encrypted key only when the first
 * connection is made, and node:tls skips a CA file with no certificate in it without a word (every
 * handshake then fails as an unknown CA).
 */

export type TlsField = 'ca' | 'cert' | 'key';

export type TlsFiles = Partial<Record<TlsField, { path: string; bytes: Buffer }>>;

export interface TlsFileProblem {
  field: TlsField;
  message: string;
  hint: string;
}

const PEM_HINT = 'a PEM file (-----BEGIN …-----); openssl x509 -noout -text -in FILE shows a certificate, openssl pkey -noout -in FILE a key';

/** The first problem of the files, field by field (ca, cert, key, then the pair), or undefined. */
export function checkTlsFiles(files: TlsFiles): TlsFileProblem | undefined {
  return (
    (files.ca && caProblem(files.ca.path, files.ca.bytes.toString('latin1'))) ||
    (files.cert && contextProblem('cert', files.cert.path, { cert: files.cert.bytes })) ||
    (files.key && contextProblem('key', files.key.path, { key: files.key.bytes })) ||
    (files.cert && files.key && pairProblem(files.cert.path, files.key.path, { cert: files.cert.bytes, key: files.key.bytes })) ||
    undefined
  );
}

const CERTIFICATE_BLOCK = /-----BEGIN (TRUSTED )?CERTIFICATE-----[\s\S]*?-----END \1?CERTIFICATE-----/g;

/** A CA file is one or more PEM certificates; each must parse. */
function caProblem(path: string, text: string): TlsFileProblem | undefined {
  const blocks = [...text.matchAll(CERTIFICATE_BLOCK)];
  if (blocks.length === 0) return { field: 'ca', message: `${path} holds no PEM certificate`, hint: PEM_HINT };
  for (const [n, block] of blocks.entries()) {
    // OpenSSL's TRUSTED CERTIFICATE (a certificate with trust settings) is taken by node:tls but not by X509Certificate.
    if (block[1] !== undefined) continue;
    try {
      new X509Certificate(block[0]);
    } catch (error) {
      return { field: 'ca', message: `certificate ${n + 1} of ${path} does not parse (${oneLine(error)})`, hint: PEM_HINT };
    }
  }
  return undefined;
}

function contextProblem(field: 'cert' | 'key', path: string, options: { cert?: Buffer; key?: Buffer }): TlsFileProblem | undefined {
  const error = contextError(options);
  if (error === undefined) return undefined;
  if (field === 'key' && error.code === 'ERR_OSSL_BAD_DECRYPT')
    return { field, message: `${path} is an encrypted key (${oneLine(error)})`, hint: 'stampede takes the key unencrypted: openssl pkey -in KEY -out KEY.plain' };
  return { field, message: `${path} is not a PEM ${field === 'cert' ? 'certificate' : 'private key'} (${oneLine(error)})`, hint: PEM_HINT };
}

function pairProblem(certPath: string, keyPath: string, options: { cert: Buffer; key: Buffer }): TlsFileProblem | undefined {
  const error = contextError(options);
  if (error === undefined) return undefined;
  return {
    field: 'key',
    message: `${keyPath} is not the key of the certificate ${certPath} (${oneLine(error)})`,
    hint: 'give http.tls.key the private key the client certificate was issued for',
  };
}

function contextError(options: { cert?: Buffer; key?: Buffer }): NodeJS.ErrnoException | undefined {
  try {
    createSecureContext(options);
    return undefined;
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}
