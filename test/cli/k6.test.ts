import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stampede } from '../helpers/cli.ts';

/* `stampede export k6` and `stampede lint <k6 script>` through the real CLI: files, output, exit codes. */

const dir = mkdtempSync(join(tmpdir(), 'stampede-k6-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stampede export k6 and lint of k6 scripts', () => {
  it('exports a profile to a script that lints clean (exit 0)', () => {
    const script = join(dir, 'storefront.ts');
    const exported = stampede(['export', 'k6', 'test/fixtures/k6/storefront.yaml', '-o', script]);
    expect(exported.stderr).toContain(`wrote ${script}`);
    expect(exported.status).toBe(0);
    expect(existsSync(script)).toBe(true);
    const linted = stampede(['lint', script]);
    expect(linted.stdout).toContain('None: nothing in the setup departs from production');
    expect(linted.status).toBe(0);
  });

  it('calls a closed-loop k6 script INVALID with exit 1, as a profile', () => {
    const linted = stampede(['lint', 'profiles/k6/closed-loop.js']);
    expect(linted.stdout).toMatch(/^# profiles\/k6\/closed-loop\.js \(k6 script\): realism flags before a run \(INVALID\)/);
    expect(linted.stdout).toContain('| **INVALID** | coordinated-omission | closed-loop load:');
    expect(linted.status).toBe(1);
  });

  it('refuses a memcached profile and a script that does not compile with exit 2', () => {
    const memcached = stampede(['export', 'k6', 'profiles/user-cache-memcached.yaml', '--target', 'memcached://127.0.0.1:11211']);
    expect(memcached.stderr).toContain('k6 core speaks HTTP, not memcached');
    expect(memcached.status).toBe(2);
    const broken = stampede(['lint', 'test/fixtures/k6/does-not-compile.js']);
    expect(broken.stderr).toContain('stampede: k6 script test/fixtures/k6/does-not-compile.js: it does not compile');
    expect(broken.status).toBe(2);
  });
});
