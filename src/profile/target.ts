/*
 * The one parser of target strings. The profile schema validates `target:` with it, the CLI parses
 * `--target` with it, and createDriver dispatches on the TargetSpec it returns, so "which targets
 * exist and how they are spelled" has a single home. A new protocol is one more entry in SCHEMES.
 */

export interface ServerAddress {
  host: string;
  port: number;
}

/** A parsed target. `text` is the target as written: what result.json and the reports show. */
export type TargetSpec =
  | { kind: 'model'; text: string }
  | { kind: 'http'; text: string; url: URL; host: string; port: number; tls: boolean }
  | { kind: 'memcached'; text: string; servers: ServerAddress[] };

export type TargetKind = TargetSpec['kind'];
export type HttpTarget = Extract<TargetSpec, { kind: 'http' }>;
export type MemcachedTarget = Extract<TargetSpec, { kind: 'memcached' }>;

export const TARGET_FORMS = '"model", http://host:port, https://host:port or memcached://host:port[,host:port…]';

/** A target string that names no target: bad input, wherever it was written (exit 2 from the CLI). */
export class TargetError extends Error {
  override readonly name = 'TargetError';
  constructor(
    readonly target: string,
    problem: string,
  ) {
    super(`target ${JSON.stringify(target)}: ${problem}`);
  }
}

const SCHEMES: Readonly<Record<string, (text: string, rest: string) => TargetSpec>> = {
  http: (text, rest) => parseHttp(text, rest, false),
  https: (text, rest) => parseHttp(text, rest, true),
  memcached: parseMemcached,
};

/** Parses "model", http[s]://host[:port][/] or memcached://host:port[,host:port…][/]. @throws TargetError */
export function parseTarget(text: string): TargetSpec {
  if (text === 'model') return { kind: 'model', text };
  const match = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(text);
  const parse = match ? SCHEMES[match[1]!.toLowerCase()] : undefined;
  if (!match) throw new TargetError(text, `expected ${TARGET_FORMS}`);
  if (!parse) throw new TargetError(text, `unknown scheme "${match[1]}"; expected ${TARGET_FORMS}`);
  return parse(text, match[2]!.replace(/\/$/, ''));
}

/** http:// and https:// (TLS; the `http.tls` section holds its options): the same target otherwise. */
function parseHttp(text: string, authority: string, tls: boolean): TargetSpec {
  const scheme = tls ? 'https' : 'http';
  if (authority === '' || /[/?#\s]/.test(authority)) throw new TargetError(text, `expected ${scheme}://host:port with no path (request paths belong in http.requests)`);
  const port = portOf(text, /:(\d+)$/.exec(authority)?.[1] ?? (tls ? '443' : '80'));
  let url: URL;
  try {
    url = new URL(`${scheme}://${authority}/`);
  } catch {
    throw new TargetError(text, `"${authority}" is not a valid host:port`);
  }
  return { kind: 'http', text, url, host: url.hostname.replace(/^\[|\]$/g, ''), port, tls };
}

function parseMemcached(text: string, list: string): TargetSpec {
  if (list.trim() === '') throw new TargetError(text, 'no servers; expected memcached://host:port[,host:port…]');
  const servers = list.split(',').map((part) => {
    const match = /^([^:\s/,[\]]+|\[[^\]\s]+\]):(\d+)$/.exec(part.trim());
    if (!match) throw new TargetError(text, `expected host:port, got "${part}"`);
    // Canonical, as the guard judges it: the host it approved is the host dialled (127.0.0.1. is 127.0.0.1, not a DNS name).
    return { host: canonicalHost(match[1]!), port: portOf(text, match[2]!) };
  });
  return { kind: 'memcached', text, servers };
}

function portOf(text: string, digits: string): number {
  const port = Number(digits);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new TargetError(text, `port ${digits} is out of range 1–65535`);
  return port;
}

/*
 * Loopback. A target host is loopback when it is `localhost`, an IPv4 address in 127.0.0.0/8 or
 * ::1 (an IPv4-mapped ::ffff:127.x.y.z too). Names are not resolved: any name but `localhost` is
 * remote, even if DNS would answer 127.0.0.1 — what a name resolves to can change between the check
 * and the dial. Addresses are read the way the WHATWG URL parser reads a host (so 127.1 and
 * 0x7f.0.0.1 are 127.0.0.1, as the socket layer dials them).
 */

/** A host in its canonical form (lower case, IPv4 dotted quad, IPv6 without brackets), for comparing hosts. */
export function canonicalHost(host: string): string {
  const bare = host.trim().replace(/^\[|\]$/g, '');
  try {
    return new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return bare.toLowerCase();
  }
}

/** True for localhost, 127.0.0.0/8 and ::1 (see above); a DNS name is never resolved. */
export function isLoopbackHost(host: string): boolean {
  const canonical = canonicalHost(host);
  if (canonical === 'localhost' || canonical === '::1') return true;
  if (/^127\.\d+\.\d+\.\d+$/.test(canonical)) return true;
  // IPv4-mapped IPv6, as the URL parser writes it: ::ffff:7f00:1 is 127.0.0.1.
  const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(canonical);
  return mapped !== null && Number.parseInt(mapped[1]!, 16) >> 8 === 127;
}

/** Every host a target sends to: none for the model, the host of an http target, each memcached server. */
export function targetHosts(spec: TargetSpec): string[] {
  if (spec.kind === 'model') return [];
  if (spec.kind === 'http') return [spec.host];
  return [...new Set(spec.servers.map((s) => s.host))];
}

/**
 * A path on the target itself: starts with one `/`, no scheme, no host, no backslash (which URL
 * parsers read as `/`), no whitespace or control characters. `//other-host/x` would leave the target.
 */
export function isPathOnTarget(path: string): boolean {
  if (!/^\/(?![/\\])[^\\\s\p{Cc}]*$/u.test(path)) return false;
  const base = new URL('http://127.0.0.1:1/');
  return new URL(path, base).host === base.host;
}
