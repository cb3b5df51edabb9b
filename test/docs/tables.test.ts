import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyHandCells, flagDefinitions, type GeneratedTable, generatedRegion, regenerate, renderTable, TABLES } from '../../scripts/docs-tables.ts';
import { ExitCode } from '../../src/cli/exit-codes.ts';
import { repoRoot } from '../helpers/cli.ts';

/*
 * The docs' tables that mirror code (exit codes, realism flags, profile and topology fields,
 * Prometheus series) are what the code makes of them now: each is regenerated in memory and
 * compared with its page. A drift names the table and the command that rewrites it.
 */

const page = (file: string) => readFileSync(join(repoRoot, file), 'utf8');

describe('the generated tables', () => {
  for (const table of TABLES) {
    it(`${table.page} holds the ${table.name} table as the code makes it`, async () => {
      const text = page(table.page);
      const region = generatedRegion(text, table.name);
      expect(region, `${table.page}: no <!-- generated:${table.name} --> markers`).toBeDefined();
      const fresh = await renderTable(table, region);
      expect(region === fresh, `${table.page}: the ${table.name} table has drifted from the code; run \`npm run docs:tables\``).toBe(true);
      const empty = emptyHandCells(table, region!);
      expect(empty, `${table.page}: write the "${table.columns.at(-1)}" of these rows of the ${table.name} table`).toEqual([]);
    });
  }

  it('each table has rows: the exit codes, the flags, the fields and the series are all there', async () => {
    const rows = Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t.name, await t.rows()] as const)));
    expect(rows['exit-codes']!.map((r) => r[0])).toEqual(Object.values(ExitCode).map((code) => `\`${code}\``));
    expect(rows['profile-fields']!.map((r) => r[0])).toEqual(
      expect.arrayContaining(['`phases[]{type: ramp}.from`', '`http.tls.servername`', '`memcached.hash`', '`limits.maxModelState`']),
    );
    expect(rows['topology-fields']!.map((r) => r[0])).toEqual(expect.arrayContaining(['`topology.clientGroups.<name>.pool.maxOpen`', '`topology.caches.<name>.shards`']));
    expect(rows['metrics']!.map((r) => r[0])).toEqual(expect.arrayContaining(['`stampede_requests_total`', '`stampede_latency_seconds`']));
    expect(rows['metrics']!.find((r) => r[0] === '`stampede_latency_seconds`')?.[1]).toBe('histogram');
  });
});

describe('the flags as the code defines them', () => {
  const flags = flagDefinitions('src/analysis/realism');
  const k6 = flagDefinitions('src/interop/k6/lint');

  it('reads every id once, with each severity it is raised with and its titles', () => {
    const ids = flags.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['coordinated-omission', 'generator-bottleneck', 'key-skew', 'tls-unused', 'spoiled-step']));
    // Literal severities, and a variable's: the rule sets `severity` to 'invalid' or leaves 'warn'.
    expect(flags.find((f) => f.id === 'coordinated-omission')?.severities).toEqual(['invalid', 'warn']);
    expect(flags.find((f) => f.id === 'generator-bottleneck')?.severities).toEqual(['invalid', 'warn']);
    expect(flags.find((f) => f.id === 'no-hot-key')?.severities).toEqual(['warn', 'info']);
    expect(flags.find((f) => f.id === 'key-skew')?.titles).toEqual(['keys less skewed than production', 'uniform keys', 'mildly skewed keys']);
    for (const f of [...flags, ...k6]) expect(f.severities.length, f.id).toBeGreaterThan(0);
    // A ternary in the call itself.
    expect(k6.find((f) => f.id === 'too-few-samples')?.severities).toEqual(['invalid', 'warn']);
  });

  it('a flag raised by both a profile and a k6 script has the same severities in each', () => {
    for (const f of k6) {
      const same = flags.find((p) => p.id === f.id);
      if (same) expect(same.severities, f.id).toEqual(expect.arrayContaining(f.severities));
    }
  });
});

describe('regenerating a table between its markers', () => {
  const table: GeneratedTable = {
    name: 'demo',
    page: 'docs/demo.md',
    columns: ['id', 'from code', 'by hand'],
    kept: 1,
    rows: () => [
      ['`a`', 'A now'],
      ['`c`', 'C'],
    ],
  };
  const before =
    'text\n<!-- generated:demo -->\n| id | from code | by hand |\n| --- | --- | --- |\n| `a` | A then | a by hand |\n| `b` | B | b by hand |\n<!-- /generated:demo -->\nafter\n';

  it('rewrites the code columns, keeps hand cells by the row key, drops gone rows and adds new ones empty', async () => {
    const after = await regenerate(before, table);
    expect(after).toBe(
      'text\n<!-- generated:demo -->\n| id | from code | by hand |\n| --- | --- | --- |\n| `a` | A now | a by hand |\n| `c` | C |  |\n<!-- /generated:demo -->\nafter\n',
    );
    expect(emptyHandCells(table, generatedRegion(after, 'demo')!)).toEqual(['`c`']);
    expect(await regenerate(after, table)).toBe(after);
  });

  it('refuses a page without the markers', async () => {
    await expect(regenerate('no markers here\n', table)).rejects.toThrow('docs/demo.md: no <!-- generated:demo --> … <!-- /generated:demo --> markers');
  });
});
