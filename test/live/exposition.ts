/** Reading Prometheus exposition text back in tests: sample values, the set of series names, the declared types. */

/** A sample line's labels, `{a="x",b="y"}` → { a: 'x', b: 'y' } (values with no escaped quotes, as in these tests). */
function labelsOf(text: string | undefined): Record<string, string> {
  return Object.fromEntries([...(text ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
}

/** The value of the one sample of `name` whose labels include `labels`; throws when there is none or more than one. */
export function sample(text: string, name: string, labels: Record<string, string>): number {
  const found: number[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = labelsOf(m[2]);
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) found.push(Number(m[3]));
  }
  if (found.length !== 1) throw new Error(`${found.length} samples ${name}${JSON.stringify(labels)} in:\n${text}`);
  return found[0]!;
}

/** Every metric name that has a sample line. */
export function exposedSeries(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (m) names.add(m[1]!);
  }
  return names;
}

/** Each metric family's `# TYPE`: name → counter, gauge, histogram, … */
export function declaredTypes(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

/** The labels of every sample of `name`. */
export function sampleLabels(text: string, name: string): Record<string, string>[] {
  const out: Record<string, string>[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (m && m[1] === name) out.push(labelsOf(m[2]));
  }
  return out;
}
