import { describe, expect, it } from 'vitest';
import { realismFlags } from '../../../src/analysis/realism/index.ts';
import { flagTable, FLAGS } from '../../../src/analysis/realism/registry.ts';
import { SEVERITY_ORDER } from '../../../src/analysis/realism/types.ts';
import { profileWith } from './fixtures.ts';

describe('the realism flag registry', () => {
  it('lists every flag once, with the severities it is raised at (worst first) and a one-line meaning', () => {
    const table = flagTable();

    expect(table.map((row) => row.id)).toEqual(Object.keys(FLAGS));
    for (const { id, severities, meaning } of table) {
      expect(severities.length, id).toBeGreaterThan(0);
      expect(
        [...severities].sort((a, b) => SEVERITY_ORDER[a] - SEVERITY_ORDER[b]),
        id,
      ).toEqual(severities);
      expect(meaning, id).toMatch(/^\S[^\n]*$/);
    }
  });

  it('holds every flag a profile raises, at a severity it lists', () => {
    const flags = realismFlags({ profile: profileWith({ warmup: 0, keys: { count: 1000 } }) });

    expect(flags.length).toBeGreaterThan(0);
    for (const f of flags) expect(FLAGS[f.id].severities as readonly string[], f.id).toContain(f.severity);
  });
});
