import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stampede } from '../helpers/cli.ts';
import { makeTestPki } from '../helpers/tls.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-validate-tls-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function profileWith(tls: string): string {
  const file = join(scratch, `p-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, `name: tls-check\ntarget: https://127.0.0.1:8443\nphases: [{type: steady, rate: 10, duration: 5s}]\nhttp:\n  tls: ${tls}\n`);
  return file;
}

describe('stampede validate on an https:// target', { timeout: 60_000 }, () => {
  it('refuses a TLS file it cannot read, naming the field and the resolved path (exit 2), as run would', () => {
    const r = stampede(['validate', profileWith('{ ca: missing-ca.pem }')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('http.tls.ca');
    expect(r.stderr).toContain(join(scratch, 'missing-ca.pem'));
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('accepts the profile once the file is there', async () => {
    await makeTestPki(scratch);
    const r = stampede(['validate', profileWith('{ ca: ca.pem }')]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
