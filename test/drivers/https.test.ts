import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RunStartError } from '../../src/driver/errors.ts';
import { runProfile } from '../../src/pipeline/run.ts';
import { ProfileError } from '../../src/profile/issues.ts';
import { makeProfile } from '../helpers/profile.ts';
import type { RunningTarget } from '../helpers/targets.ts';
import { makeTestPki, type TestPki } from '../helpers/tls.ts';
import { startHttpsTarget } from '../helpers/tls-targets.ts';

const running: RunningTarget[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'stampede-https-'));
let pki: TestPki;
beforeAll(async () => {
  pki = await makeTestPki(scratch);
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.close()));
});
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

let runs = 0;
async function run(input: Record<string, unknown>, target: string) {
  const profile = makeProfile({ name: 'tls', arrivals: 'constant', ...input } as never);
  return runProfile(profile, { target, outDir: join(scratch, String(runs++)) });
}

const steady = (rate: number, duration: string) => [{ type: 'steady', rate, duration }];

describe('https:// targets (HTTP/1.1 over node:tls, 127.0.0.1)', () => {
  it('trusts the CA given in http.tls.ca, sends the SNI name asked for and counts every request', async () => {
    const names = new Set<string | false | null>();
    const target = await startHttpsTarget(pki.server, (req, res) => {
      names.add((req.socket as TLSSocket).servername);
      res.end('ok');
    });
    running.push(target);
    const { result, analysis } = await run({ phases: steady(200, '1s'), http: { connections: 2, tls: { ca: pki.files.ca, servername: 'api.test' } } }, target.url);
    expect(result.requests.ok).toBe(200);
    expect(result.requests.failed).toBe(0);
    expect(result.driver.transport).toMatchObject({ statusCodes: { '200': 200 }, connects: 2, tls: { verified: true } });
    expect([...names]).toEqual(['api.test']);
    expect(analysis.flags.map((f) => f.id)).not.toContain('tls-unverified');
  });

  it('cannot start against a certificate its CA did not sign, and says which TLS check failed', async () => {
    const target = await startHttpsTarget(pki.server, (_req, res) => res.end('ok'));
    running.push(target);
    const refused = run({ phases: steady(50, '0.3s'), http: { connections: 2, tls: { ca: pki.files.wrongCa } } }, target.url);
    await expect(refused).rejects.toThrow(RunStartError);
    await expect(refused).rejects.toThrow(/no connection could be made.*last failure [A-Z_]*(CERT|VERIFY)[A-Z_]*: .*http\.tls\.ca/);
  });

  it('records handshakes that fail mid-run (a certificate rotated to another CA) as tls_error outcomes', async () => {
    // Phases follow the traffic: after 100 answers the server presents a certificate from a CA
    // the client does not trust and drops its connections, so every reconnect fails its handshake.
    let answered = 0;
    const target = await startHttpsTarget(pki.server, (_req, res) => {
      res.end('ok');
      if (++answered !== 100) return;
      target.server.setSecureContext(pki.strangerServer);
      setImmediate(() => {
        for (const s of target.sockets) s.destroy();
      });
    });
    running.push(target);
    const { result } = await run({ phases: steady(400, '1s'), http: { connections: 2, timeout: '500ms', tls: { ca: pki.files.ca } } }, target.url);
    expect(result.requests.ok).toBeGreaterThanOrEqual(100);
    expect(result.errors['tls_error'] ?? 0).toBeGreaterThan(0);
    expect(result.requests.ok + result.requests.failed + result.requests.dropped).toBe(400);
  });

  it('accepts any certificate with insecure: true, and flags the run', async () => {
    const target = await startHttpsTarget(pki.server, (_req, res) => res.end('ok'));
    running.push(target);
    const { result, analysis } = await run({ phases: steady(100, '0.5s'), http: { connections: 1, tls: { insecure: true } } }, target.url);
    expect(result.requests.ok).toBe(50);
    expect(result.driver.transport).toMatchObject({ tls: { verified: false } });
    expect(analysis.flags.find((f) => f.id === 'tls-unverified')).toMatchObject({ severity: 'warn', title: 'certificate checking off' });
  });

  it('authenticates with the client certificate of http.tls.cert and key to a server that requires one', async () => {
    const subjects = new Set<string>();
    const target = await startHttpsTarget({ ...pki.server, ca: pki.caCert, requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.3' }, (req, res) => {
      subjects.add(String((req.socket as TLSSocket).getPeerCertificate().subject?.CN));
      res.end('ok');
    });
    running.push(target);
    const tls = { ca: pki.files.ca, cert: pki.files.clientCert, key: pki.files.clientKey };
    const { result } = await run({ phases: steady(100, '0.5s'), http: { connections: 2, tls } }, target.url);
    expect(result.requests.ok).toBe(50);
    expect([...subjects]).toEqual(['stampede client']);
    // Without one, TLS 1.3 finishes the client's side of the handshake and the server then refuses
    // it with an alert: the run starts, and each request written fails with the alert.
    const { result: without } = await run({ phases: steady(100, '0.5s'), http: { connections: 2, timeout: '5s', tls: { ca: pki.files.ca } } }, target.url);
    expect(without.requests.ok).toBe(0);
    expect(without.errors['tls_error'] ?? 0).toBeGreaterThan(0);
  });

  it('runs on --workers threads, each dialing with the same TLS options; an unreadable file stops it on the main thread', async () => {
    const target = await startHttpsTarget(pki.server, (_req, res) => res.end('ok'));
    running.push(target);
    const profile = makeProfile({ name: 'tls', arrivals: 'constant', phases: steady(200, '0.5s'), http: { connections: 2, tls: { ca: pki.files.ca } } } as never);
    const { result } = await runProfile(profile, { target: target.url, outDir: join(scratch, 'workers'), workers: 2 });
    expect(result.requests.ok).toBe(100);
    expect(result.driver.transport?.perWorker?.map((w) => (w.protocol === 'http' ? w.tls : undefined))).toEqual([{ verified: true }, { verified: true }]);
    const missing = makeProfile({ name: 'tls', phases: steady(10, '0.2s'), http: { tls: { ca: join(scratch, 'gone.pem') } } } as never);
    await expect(runProfile(missing, { target: target.url, outDir: join(scratch, 'workers-missing'), workers: 2 })).rejects.toThrow(ProfileError);
  });

  it('refuses a TLS file that cannot be read before any traffic, naming the field and the path', async () => {
    const missing = join(scratch, 'no-such-ca.pem');
    const outDir = join(scratch, 'refused');
    const profile = makeProfile({ name: 'tls', phases: steady(10, '0.2s'), http: { tls: { ca: missing } } } as never);
    const attempt = runProfile(profile, { target: 'https://127.0.0.1:1', outDir });
    await expect(attempt).rejects.toThrow(ProfileError);
    await expect(attempt).rejects.toThrow(`http.tls.ca: cannot read ${missing}: no such file`);
    // Nothing was measured, so nothing is left in the run folder.
    expect(readdirSync(outDir)).toEqual([]);
  });
});
