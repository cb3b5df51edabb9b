import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isMap, isSeq, parseDocument, stringify } from 'yaml';
import { ProfileError } from '../../src/profile/issues.ts';
import { parseProfileText } from '../../src/profile/load.ts';

/*
 * Property: whatever the text and the --set overrides, the loader returns a Profile or throws a
 * ProfileError whose every issue is located (file, line ≥ 0, a message, a hint) — never another
 * exception. Seeded, with modest run counts: this runs in the fast tier on a busy machine.
 */

const SEED = 20_240_611;
const PROFILES_DIR = 'profiles';
const SHIPPED = readdirSync(PROFILES_DIR)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => ({ file: join(PROFILES_DIR, f), text: readFileSync(join(PROFILES_DIR, f), 'utf8') }));

/** Loads and classifies: 'profile' or 'issues'; anything else fails the property with the error. */
async function outcome(text: string, file: string, overrides: string[] = []): Promise<'profile' | 'issues'> {
  try {
    await parseProfileText(text, file, overrides);
    return 'profile';
  } catch (error) {
    if (!(error instanceof ProfileError)) throw error;
    expect(error.issues.length).toBeGreaterThan(0);
    for (const issue of error.issues) {
      expect(issue.line).toBeGreaterThanOrEqual(0);
      expect(issue.column).toBeGreaterThanOrEqual(0);
      expect(typeof issue.path).toBe('string');
      expect(issue.message.length).toBeGreaterThan(0);
      expect(issue.hint.length).toBeGreaterThan(0);
      expect(issue.file.length).toBeGreaterThan(0);
    }
    return 'issues';
  }
}

/** Values a field may be retyped to: edges of numbers, strings, lists, maps, nulls. */
const oddValue = fc.oneof(
  fc.constantFrom(0, -1, 1e308, -1e308, Number.NaN, Number.POSITIVE_INFINITY, 0.5, 2 ** 53, '', 'fast', '10 parsecs', '0s', '1h', null, true, [], {}, [null], 'inf'),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 12 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
);

/** Every path to a value in a parsed document, as [key|index…]. */
function paths(node: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (Array.isArray(node)) node.forEach((v, i) => (out.push([...prefix, i]), paths(v, [...prefix, i], out)));
  else if (node !== null && typeof node === 'object')
    for (const [k, v] of Object.entries(node)) {
      out.push([...prefix, k]);
      paths(v, [...prefix, k], out);
    }
  return out;
}

type Mutation = 'delete' | 'duplicate' | 'retype';

/** One mutation of a shipped profile's document, written back as YAML text. */
function mutate(text: string, choice: number, how: Mutation, value: unknown): string {
  const doc = parseDocument(text);
  const all = paths(doc.toJS());
  if (all.length === 0) return text;
  const path = all[choice % all.length]!;
  if (how === 'delete') doc.deleteIn(path);
  else if (how === 'retype') doc.setIn(path, doc.createNode(value));
  else {
    const parent = doc.getIn(path.slice(0, -1), true);
    const item = doc.getIn(path, true);
    if (isSeq(parent)) parent.items.push(item);
    else if (isMap(parent)) return `${text}\n${stringify({ [String(path.at(-1))]: doc.getIn(path) })}`;
  }
  return doc.toString();
}

/** `--set path=value`, from a real path of the profile or a made-up one. */
function overrideText(text: string, choice: number, value: unknown, made: string): string {
  const all = paths(parseDocument(text).toJS());
  const path = all.length > 0 && choice % 3 !== 0 ? all[choice % all.length]! : made.split('.');
  const written = path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
  return `${written}=${typeof value === 'string' ? value : JSON.stringify(value)}`;
}

describe('the profile loader under fuzzing (fast-check, seeded)', () => {
  it('loads every shipped profile as it is', async () => {
    for (const p of SHIPPED) expect(await outcome(p.text, p.file)).toBe('profile');
  });

  it('gives a Profile or located issues for random YAML documents', async () => {
    const yamlText = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.json({ maxDepth: 3 }).map((json) => stringify(JSON.parse(json))),
      fc
        .array(
          fc.constantFrom(
            'name: x\n',
            'phases:\n',
            '  - ',
            '{type: steady, rate: 1, duration: 1s}\n',
            '&a ',
            '*a\n',
            'topology: t.yaml\n',
            '\t',
            ': ',
            '[',
            '}',
            '---\n',
            '"',
            '#',
          ),
          {
            maxLength: 20,
          },
        )
        .map((parts) => parts.join('')),
    );
    await fc.assert(
      fc.asyncProperty(yamlText, async (text) => {
        await outcome(text, 'fuzz.yaml');
      }),
      { seed: SEED, numRuns: 150 },
    );
  });

  it('gives a Profile or located issues for mutations of every shipped profile', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SHIPPED), fc.nat(), fc.constantFrom<Mutation>('delete', 'duplicate', 'retype'), oddValue, async (p, choice, how, value) => {
        await outcome(mutate(p.text, choice, how, value), p.file);
      }),
      { seed: SEED, numRuns: 150 },
    );
  });

  it('gives a Profile or located issues for random --set overrides of every shipped profile', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...SHIPPED),
        fc.array(fc.tuple(fc.nat(), oddValue, fc.constantFrom('seed', 'phases.0.rate', 'topology.x', 'a.b.c', 'clients[9].name', 'keys', '')), { minLength: 1, maxLength: 3 }),
        async (p, sets) => {
          await outcome(
            p.text,
            p.file,
            sets.map(([choice, value, made]) => overrideText(p.text, choice, value, made)),
          );
        },
      ),
      { seed: SEED, numRuns: 150 },
    );
  });
});
