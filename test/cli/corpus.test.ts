import { existsSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CORPUS } from '../corpus/cases.ts';
import { materialize, NEVER } from '../corpus/materialize.ts';
import { stampede } from '../helpers/cli.ts';
import { freePort } from '../helpers/targets.ts';

/*
 * The real CLI as a child process, on a representative subset of the corpus (test/corpus/ runs
 * every case in-process): the same exit codes and messages, one line each for the command line.
 * Also what only a real process shows: a target nothing listens on cannot start the run (exit 3).
 */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-corpus-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Bounds each child: a case that hangs fails instead of stalling the suite. */
const CASE_LIMIT_MS = 60_000;

const SPAWNED = [
  'profile alias-bomb',
  'profile name-too-long',
  'profile stats-path-host',
  'profile topology-file-broken',
  'run with the issue’s --rate',
  'validate --bogus',
  'qualify --growth 1',
  'run --seed with --set seed=',
  'run a remote http --target',
  'sweep --vary with a mistyped path',
  'serve --memcached port 99999',
  'serve a remote --memcached',
];

describe('the bad-input corpus, through the real CLI', () => {
  it.each(SPAWNED)('%s', (name) => {
    const index = CORPUS.findIndex((c) => c.name === name);
    const c = CORPUS[index]!;
    const { argv, out } = materialize(c, scratch, index);
    const run = stampede(argv, CASE_LIMIT_MS);
    expect(run.status).toBe(c.exit);
    expect(run.stderr).toContain(c.stderr);
    expect(run.stderr).not.toMatch(NEVER);
    expect(run.stdout).toBe('');
    if (c.argv[0] !== 'validate' && !c.name.startsWith('profile')) expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(out)).toBe(false);
  });

  it.each(['http', 'memcached'])('exits 3 "could not start", naming the address, when no %s server can be reached before the run', async (scheme) => {
    const target = `${scheme}://127.0.0.1:${await freePort()}`;
    const run = stampede(['run', 'test/corpus/base.yaml', '--target', target, '--out', join(scratch, scheme)], CASE_LIMIT_MS);
    expect(run.status).toBe(3);
    // Each transport names the last dial failure (a TLS refusal reads very differently from a closed port); memcached's per server.
    const address = target.slice(`${scheme}://`.length);
    const cause =
      scheme === 'http'
        ? `; last failure ECONNREFUSED: connect ECONNREFUSED ${address}`
        : `; last failure on ${address}: ECONNREFUSED: connect ECONNREFUSED ${address} — is memcached running and listening there?`;
    expect(run.stderr).toBe(`stampede: could not start: ${target}: no connection could be made to any server before the run (refused or unreachable)${cause}\n`);
    // Nothing was measured, so nothing is left: not even the empty interval log.
    expect(readdirSync(join(scratch, scheme))).toEqual([]);
  });

  it('announces an allowed non-loopback host on stderr before the first request', async () => {
    // 0.0.0.0 is not loopback by stampede's rule, yet Linux dials it on this machine: no traffic leaves it.
    const target = `http://0.0.0.0:${await freePort()}`;
    const run = stampede(['run', 'test/corpus/base.yaml', '--target', target, '--allow-remote', '0.0.0.0', '--out', join(scratch, 'allowed')], CASE_LIMIT_MS);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toBe('stampede: sending traffic to remote host 0.0.0.0 (allowed by --allow-remote / STAMPEDE_ALLOW_REMOTE)');
    expect(lines[1]).toContain(`could not start: ${target}`);
    expect(run.status).toBe(3);
  });
});
