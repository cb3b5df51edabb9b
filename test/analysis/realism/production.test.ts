import { describe, expect, it } from 'vitest';
import { parseProfileText } from '../../../src/profile/index.ts';
import { ProfileError } from '../../../src/profile/issues.ts';
import { productionFromSample, withProduction } from '../../../src/analysis/realism/production-sample.ts';
import { realismFlags } from '../../../src/analysis/realism/index.ts';
import { profileWith } from './fixtures.ts';

const BASE = `name: p
phases: [{ type: steady, rate: 10, duration: 1s }]
topology: { entry: api, services: { api: { workers: 1, serviceTime: 1ms } } }
`;

describe('production: section', () => {
  it('is optional and accepted with every field', async () => {
    const profile = await parseProfileText(
      `${BASE}production:\n  peakRps: 5000\n  dataCentres: 3\n  topKeyShares: [{ keys: 1, share: 0.1 }, { keys: 100, share: 0.4 }]\n  batchSize: { p50: 10, p99: 50, max: 20000 }\n  valueSize: { p50: 300, p99: 9000 }\n  connectionsPerClient: 2\n  clientInstances: 4000\n  shards: 20\n  hitRatio: 0.97\n`,
      'p.yaml',
    );
    expect(profile.production?.dataCentres).toBe(3);
    expect((await parseProfileText(BASE, 'p.yaml')).production).toBeUndefined();
  });

  it('rejects unknown fields, decreasing percentiles and shrinking top-key shares, with their paths', async () => {
    const text = `${BASE}production:\n  peak: 5\n  batchSize: { p50: 100, p99: 50 }\n  topKeyShares: [{ keys: 10, share: 0.5 }, { keys: 100, share: 0.4 }]\n`;
    const error = await parseProfileText(text, 'p.yaml').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProfileError);
    const paths = (error as ProfileError).issues.map((i) => i.path);
    expect(paths).toContain('production.batchSize.p99');
    expect(paths).toContain('production.topKeyShares[1].share');
    expect(paths.some((p) => p.startsWith('production'))).toBe(true);
    expect((error as ProfileError).issues.find((i) => i.path === 'production.batchSize.p99')!.message).toMatch(/p99 ≥ p50/);
  });
});

describe('production sample (CSV)', () => {
  const rows = ['key,batch,value,time'];
  // 1,000 requests over 10 s, one key taking 30%, batches mostly 10 with one of 20,000.
  for (let i = 0; i < 1000; i++) rows.push(`${i % 10 < 3 ? 'hot' : `k${i}`},${i === 500 ? 20000 : 10},${i % 100 === 0 ? 50000 : 400},${(i / 100).toFixed(2)}`);
  const derived = productionFromSample(rows.join('\n'));

  it('derives peak rate, top-key shares, and batch and value percentiles', () => {
    expect(derived.peakRps).toBe(100);
    expect(derived.topKeyShares?.[0]).toEqual({ keys: 1, share: 0.3 });
    expect(derived.batchSize).toMatchObject({ p50: 10, p99: 10, max: 20000 });
    expect(derived.valueSize).toMatchObject({ p50: 400, max: 50000 });
  });

  it('feeds the flags: a test without big batches is flagged against the sample', () => {
    const profile = withProduction(profileWith({ batch: 5, production: undefined }), derived);
    expect(realismFlags({ profile }).map((f) => f.id)).toContain('batch-tail');
  });
});
