import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { PRODUCTION_CLUSTERS } from '../../../src/analysis/realism/production-clusters.ts';
import { repoRoot } from '../../helpers/cli.ts';

/** The table the realism flags quote is the published one, shipped beside the profiles: a drift test. */
describe('the production clusters the flags compare with', () => {
  it('are the rows of profiles/data/twitter-cache-stats-2020Mar.csv, NA as undefined', () => {
    const rows = parse(readFileSync(join(repoRoot, 'profiles/data/twitter-cache-stats-2020Mar.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const number = (text: string) => (text === 'NA' ? undefined : Number(text));
    const text = (t: string) => (t === 'NA' ? '' : t);
    expect(PRODUCTION_CLUSTERS).toEqual(
      rows.map((r) => ({
        cluster: r.cluster,
        zipfAlpha: number(r.zipf_alpha!),
        oneHitWonderPct: number(r.one_hit_wonder_pct!),
        valueSize: number(r.value_size!),
        keySize: number(r.key_size!),
        operations: text(r.operations!),
        commonTtls: text(r.common_ttl!),
      })),
    );
    expect(PRODUCTION_CLUSTERS).toHaveLength(54);
  });
});
