import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { dirname, isAbsolute, join } from 'node:path';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { InputFileError, MiB, readInputFile } from '../../files/input-file.ts';
import { ProfileError } from '../../profile/issues.ts';
import type { HttpTlsSettings } from '../../profile/protocols/http/section.ts';
import type { HttpTarget } from '../../profile/protocols/http/spec.ts';
import type { Profile } from '../../profile/types.ts';
import { checkTlsFiles, type TlsField, type TlsFiles } from './tls-check.ts';

/*
 * TLS for https:// targets: the profile's `http.tls` files read once before the run, and the socket
 * factory the HTTP/1.1 and HTTP/2 connections dial through (plain TCP or TLS; ALPN h2 for HTTP/2).
 */

/** Bytes read from a socket: `bytes[0, length)`, valid only during the call (the buffer may be reused). */
export type ByteSink = (bytes: Buffer, length: number) => void;

/** What a connection needs to open its socket; the same for every connection of a run. */
export interface Dialer {
  /** A new socket, connecting; with `onBytes`, what it reads goes there instead of to 'data' events. */
  dial(onBytes?: ByteSink): Socket;
  /** The event after which written bytes reach the server: TCP connected, or the TLS handshake done. */
  readonly readyEvent: 'connect' | 'secureConnect';
  /** The last dial or handshake failure, e.g. "DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate", for a run that could not start. */
  lastError: string | undefined;
}

/** TLS options for node:tls and node:http2, the files already read. */
export interface TlsMaterial {
  options: ConnectionOptions;
  /** False when `insecure: true` turned certificate verification off. */
  verified: boolean;
}

const FILE_FIELDS = ['ca', 'cert', 'key'] as const;

/** A PEM file: a CA bundle (Mozilla's is under 250 KB), a certificate chain or a key. */
const PEM_FILE = { what: 'a PEM file', maxBytes: 4 * MiB };

/**
 * The TLS options of an https:// target (undefined for http://). Files are read now, before any
 * traffic, relative to the profile's folder, and checked as node:tls would take them: a file that
 * is no certificate, a key that is not the certificate's, an encrypted key are bad input here,
 * not an error at the first dial. @throws ProfileError naming the field and the file
 */
export function loadTlsMaterial(target: HttpTarget, profile: Profile): TlsMaterial | undefined {
  if (!target.tls) return undefined;
  const settings = profile.http.tls;
  const options: ConnectionOptions = { rejectUnauthorized: !settings.insecure };
  const files: TlsFiles = {};
  for (const field of FILE_FIELDS) {
    const file = settings[field];
    if (file === undefined) continue;
    const path = resolvedPath(profile.source.file, file);
    const bytes = readTlsFile(profile.source.file, field, path);
    files[field] = { path, bytes };
    options[field] = bytes;
  }
  const problem = checkTlsFiles(files);
  if (problem) throw tlsFileError(profile.source.file, problem.field, problem.message, problem.hint);
  const servername = serverName(target, settings);
  if (servername !== undefined) options.servername = servername;
  return { options, verified: !settings.insecure };
}

/** SNI is the target's host unless the profile names one; an IP address is never sent as SNI (RFC 6066). */
function serverName(target: HttpTarget, settings: HttpTlsSettings): string | undefined {
  if (settings.servername !== undefined) return settings.servername;
  return isIP(target.host) === 0 ? target.host : undefined;
}

function resolvedPath(profileFile: string, file: string): string {
  return isAbsolute(file) ? file : join(dirname(profileFile), file);
}

function readTlsFile(profileFile: string, field: TlsField, path: string): Buffer {
  try {
    return readInputFile(path, PEM_FILE);
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    throw tlsFileError(profileFile, field, `cannot read ${path}: ${error.reason}`, `the path is relative to the profile's directory (${dirname(profileFile)}); the file is PEM`);
  }
}

function tlsFileError(profileFile: string, field: TlsField, message: string, hint: string): ProfileError {
  return new ProfileError(profileFile, [{ file: profileFile, line: 0, column: 0, path: `http.tls.${field}`, message, hint }]);
}

/**
 * Where every plain-TCP socket of the process reads into when its reader takes bytes directly. One
 * buffer is enough: a read is handed on synchronously, and the reader copies what it keeps.
 */
const SHARED_READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/**
 * Plain TCP to host:port. A socket dialled with a ByteSink reads through `onread` into
 * SHARED_READ_BUFFER: no Buffer per read and no stream machinery ('data' events, readable
 * bookkeeping) between the read and the parser, which at pipelining 1 is one read per response.
 */
export function tcpDialer(host: string, port: number): Dialer {
  return {
    readyEvent: 'connect',
    lastError: undefined,
    dial(onBytes?: ByteSink) {
      const socket = onBytes
        ? tcpConnect({ host, port, noDelay: true, onread: { buffer: SHARED_READ_BUFFER, callback: (length, bytes) => keepReading(onBytes, bytes as Buffer, length) } })
        : tcpConnect({ host, port, noDelay: true });
      socket.once('error', (error: NodeJS.ErrnoException) => (this.lastError = describeError(error)));
      return socket;
    },
  };
}

function keepReading(onBytes: ByteSink, bytes: Buffer, length: number): true {
  onBytes(bytes, length);
  return true;
}

/** TLS to host:port with SNI and the profile's CA, client certificate and verification choice; `alpn`: the protocols offered. */
export function tlsDialer(host: string, port: number, tls: TlsMaterial, alpn: string[] = ['http/1.1']): Dialer {
  const options: ConnectionOptions = { ...tls.options, host, port, ALPNProtocols: alpn };
  return {
    readyEvent: 'secureConnect',
    lastError: undefined,
    dial(onBytes?: ByteSink) {
      const socket = tlsConnect(options);
      socket.setNoDelay(true);
      if (onBytes) socket.on('data', (bytes: Buffer) => onBytes(bytes, bytes.length));
      socket.once('error', (error: NodeJS.ErrnoException) => (this.lastError = describeError(error)));
      return socket;
    },
  };
}

/** "CODE: message" on one line (OpenSSL's messages end in a newline), the form a could-not-start message quotes. */
export function describeError(error: NodeJS.ErrnoException): string {
  const message = error.message.replace(/\s+/g, ' ').trim();
  return error.code ? `${error.code}: ${message}` : message;
}

/**
 * The outcome reason of a failed TLS handshake: a certificate the client refused (unknown CA, wrong
 * name, expired) or an alert from the server (e.g. it required a client certificate). Undefined for
 * codes that are not TLS.
 */
export function tlsFailureReason(code: string): 'tls_error' | undefined {
  return /CERT|^ERR_SSL_|^ERR_TLS_|^UNABLE_TO_/.test(code) ? 'tls_error' : undefined;
}
