import { describe, expect, it } from 'vitest';
import { gaugeCatalog, specOf } from '../../src/recorder/gauges.ts';
import { loadProfile } from '../../src/profile/load.ts';
import { runProfileOnModel } from './support/run.ts';

describe('the model driver declares every gauge it writes', () => {
  // Between them: caches with copies and with memory, markDown, processes, databases, hosts.
  for (const file of ['profiles/twitter-2011-08-client-ejection.yaml', 'profiles/twitter-2016-01-socket-oom.yaml']) {
    it(`${file}: each interval key has a spec in the report's catalog, each spec once`, async () => {
      const { report, recorder } = await runProfileOnModel(await loadProfile(file));
      const specs = report.gauges ?? [];
      expect(new Set(specs.map((s) => s.name)).size).toBe(specs.length);
      const catalog = gaugeCatalog(specs);
      const undeclared = new Set(recorder.intervals.flatMap((g) => Object.keys(g)).filter((key) => specOf(catalog, key) === undefined));
      expect([...undeclared]).toEqual([]);
      expect(specOf(catalog, 'hitRatio.x')?.family).toBe('hit-ratio');
    });
  }
});
