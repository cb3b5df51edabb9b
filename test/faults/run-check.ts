import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Driver } from '../../src/driver/types.ts';
import { parseTarget, protocolOf } from '../../src/profile/protocols/registry.ts';
import { runProfile } from '../../src/pipeline/run.ts';
import type { RunResult } from '../../src/recorder/result.ts';
import { RUN_FILES, readLatencyLogOf, readRunFolder } from '../../src/run-folder/index.ts';
import { makeProfile } from '../helpers/profile.ts';

/** What a fault case must end with, exactly. */
export interface ExpectedOutcome {
  ok: number;
  /** Every failure reason with its count; reasons not named must not occur. */
  errors: Record<string, number>;
  sent: number;
  notSent?: number;
  dropped?: number;
}

const scratch = mkdtempSync(join(tmpdir(), 'stampede-faults-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
let runs = 0;

/**
 * Runs `requests` GETs (constant arrivals, 20/s) against `target`, with an SLO of no errors, and
 * checks what every fault case must hold whatever the fault: the run returns, its folder is complete
 * and readable, its ledger adds up, and a run with a failure never passes.
 */
export async function runAgainstFault(target: string, settings: { requests?: number; rate?: number; section: Record<string, unknown>; driver?: Driver }): Promise<RunResult> {
  const requests = settings.requests ?? 20;
  const rate = settings.rate ?? 20;
  // The section of the target's protocol (http:, memcached:, redis:) takes the case's settings.
  const protocol = protocolOf(parseTarget(target)).name;
  const profile = makeProfile({
    name: 'fault',
    arrivals: 'constant',
    phases: [{ type: 'steady', rate, duration: `${requests / rate}s` }],
    keys: { count: 100 },
    slo: { errorRate: 0 },
    [protocol]: settings.section,
  } as never);
  const dir = join(scratch, String(runs++));
  const outcome = await runProfile(profile, { target, outDir: dir, ...(settings.driver && { driver: settings.driver }) });
  await expectCompleteRunFolder(dir);
  const r = outcome.result.requests;
  expect(r.scheduled).toBe(requests);
  expect(r.sent + r.notSent).toBe(r.ok + r.failed + r.inFlightAtEnd);
  expect(r.scheduled).toBe(r.sent + r.notSent + r.dropped);
  if (r.failed > 0) expect(outcome.analysis.verdict).not.toBe('PASS');
  return outcome.result;
}

export function expectOutcome(result: RunResult, expected: ExpectedOutcome): void {
  const r = result.requests;
  expect({ ok: r.ok, errors: result.errors, sent: r.sent, notSent: r.notSent, dropped: r.dropped, inFlightAtEnd: r.inFlightAtEnd }).toEqual({
    ok: expected.ok,
    errors: expected.errors,
    sent: expected.sent,
    notSent: expected.notSent ?? 0,
    dropped: expected.dropped ?? 0,
    inFlightAtEnd: 0,
  });
}

/** Every file of a run folder is there and reads back: the JSON parses, the interval log decodes, the reports are rendered. */
async function expectCompleteRunFolder(dir: string): Promise<void> {
  const stored = readRunFolder(dir);
  expect(stored.analysis?.verdict).toMatch(/^(PASS|FAIL|INVALID|NO SLO)$/);
  expect(stored.profile?.name).toBe('fault');
  expect((await readLatencyLogOf(dir, 1))?.length).toBeGreaterThan(0);
  expect(readFileSync(join(dir, RUN_FILES.summary), 'utf8')).toMatch(/requests: \d+ sent/);
  expect(readFileSync(join(dir, RUN_FILES.reportMarkdown), 'utf8')).toMatch(/requests: \d+ sent/);
  expect(readFileSync(join(dir, RUN_FILES.reportHtml), 'utf8')).toMatch(/^<!doctype html>/i);
}
