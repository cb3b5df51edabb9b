/*
 * What every target's parsing shares: the error a bad target string raises and the host rules the
 * loopback guard applies. The targets themselves are parsed by their protocols (protocols/registry.ts).
 */

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

/**
 * A path on the target itself: starts with one `/`, no scheme, no host, no backslash (which URL
 * parsers read as `/`), no whitespace or control characters. `//other-host/x` would leave the target.
 */
export function isPathOnTarget(path: string): boolean {
  if (!/^\/(?![/\\])[^\\\s\p{Cc}]*$/u.test(path)) return false;
  const base = new URL('http://127.0.0.1:1/');
  return new URL(path, base).host === base.host;
}
