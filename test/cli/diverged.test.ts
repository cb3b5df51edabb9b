import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stampede } from '../helpers/cli.ts';

/** A model run whose state grows without bound (the model side: test/model/divergence.test.ts). */
describe('stampede run on a diverging model', () => {
  const STORM = 'topology.clientGroups.clients.retries.count=1000';
  const scratch = mkdtempSync(join(tmpdir(), 'stampede-diverged-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('the CLI: exit 4 and "diverged at t = …" with the default limit, in a 768 MB heap (was: a heap abort), the results so far written', { timeout: 180_000 }, () => {
    const out = join(scratch, 'run');
    // The default limit's 1,000,000 pending records fit 768 MB with room; without the check this storm's state
    // passes 1.5 M and aborts that heap (limits.maxModelState=1e8 does). 512 MB was the edge, and the cache's
    // op and TTL on each call and task passed it.
    const run = stampede(['run', 'profiles/hotos-retry.yaml', '--set', STORM, '--set', 'phases[0].duration=60s', '--out', out], 170_000, {
      NODE_OPTIONS: '--max-old-space-size=768',
    });
    expect(run.status).toBe(4);
    expect(run.stdout).toMatch(/^# hotos-retry: DIVERGED\n\n- the modelled system diverged at t = \d+(\.\d+)?s: /);
    const analysis = JSON.parse(readFileSync(join(out, 'analysis.json'), 'utf8'));
    expect(analysis.verdict).toBe('DIVERGED');
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'));
    expect(result.driver.model.diverged.limit).toBe(1_000_000);
  });
});
