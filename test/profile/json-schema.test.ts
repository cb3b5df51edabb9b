import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { profileJsonSchema } from '../../src/profile/index.ts';
import { fixture } from './helpers.ts';

type JsonSchema = Record<string, unknown>;

/**
 * A small structural JSON Schema check, enough for the keywords zod emits for our profile (type, properties, required,
 * additionalProperties, items, anyOf, oneOf, const, enum, pattern, bounds, propertyNames). Returns the failures.
 */
function violations(schema: JsonSchema, value: unknown, at = ''): string[] {
  const fail = (why: string): string[] => [`${at || '/'}: ${why}`];
  const out: string[] = [];
  if (schema.type !== undefined) {
    const types = ([] as unknown[]).concat(schema.type);
    const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    const ok = types.some((t) => t === actual || (t === 'integer' && Number.isInteger(value)) || (t === 'number' && actual === 'number'));
    if (!ok) return fail(`expected ${types.join('|')}, got ${actual}`);
  }
  if ('const' in schema && schema.const !== value) out.push(...fail(`expected ${JSON.stringify(schema.const)}`));
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) out.push(...fail(`expected one of ${schema.enum.join(', ')}`));
  if (typeof value === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) out.push(...fail(`does not match ${schema.pattern}`));
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) out.push(...fail('too short'));
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) out.push(...fail('below minimum'));
    if (typeof schema.maximum === 'number' && value > schema.maximum) out.push(...fail('above maximum'));
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) out.push(...fail('not above exclusiveMinimum'));
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) out.push(...fail('not below exclusiveMaximum'));
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) out.push(...fail('too few items'));
    if (schema.items) value.forEach((item, i) => out.push(...violations(schema.items as JsonSchema, item, `${at}/${i}`)));
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const key of (schema.required ?? []) as string[]) if (!(key in record)) out.push(...fail(`missing ${key}`));
    for (const [key, item] of Object.entries(record)) {
      if (schema.propertyNames) out.push(...violations(schema.propertyNames as JsonSchema, key, `${at}/${key} (name)`));
      if (properties[key]) out.push(...violations(properties[key], item, `${at}/${key}`));
      else if (schema.additionalProperties === false) out.push(...fail(`unexpected ${key}`));
      else if (typeof schema.additionalProperties === 'object') out.push(...violations(schema.additionalProperties as JsonSchema, item, `${at}/${key}`));
    }
  }
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((s) => violations(s as JsonSchema, value, at).length === 0)) out.push(...fail('matches no anyOf branch'));
  if (Array.isArray(schema.oneOf) && schema.oneOf.filter((s) => violations(s as JsonSchema, value, at).length === 0).length !== 1)
    out.push(...fail('does not match exactly one oneOf branch'));
  return out;
}

async function fixtureData(name: string): Promise<unknown> {
  return parse(await readFile(fixture(name), 'utf8'));
}

describe('profileJsonSchema', () => {
  const schema = profileJsonSchema();

  it('is a draft 2020-12 schema with the profile fields and their descriptions', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema).toMatchObject({ type: 'object', additionalProperties: false, title: 'stampede profile', required: expect.arrayContaining(['name', 'phases']) });
    const properties = schema.properties as Record<string, JsonSchema>;
    expect(properties.phases).toMatchObject({ type: 'array', minItems: 1, description: expect.stringMatching(/rate curve/) });
    expect(properties.arrivals?.description).toMatch(/open loop/);
    expect(JSON.stringify(schema)).toContain('Requests per second.');
  });

  it('is plain JSON', () => {
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });

  it.each(['valid.yaml', 'with-topology-file.yaml', 'broken.yaml'])('sees %s the way the loader does', async (name) => {
    const problems = violations(schema, await fixtureData(name));

    if (name === 'broken.yaml') expect(problems).not.toEqual([]);
    else expect(problems).toEqual([]);
  });

  it('self-check: the mini validator catches an unknown field and a bad discriminator', () => {
    expect(violations(schema, { name: 'x', phases: [{ type: 'steady', rate: 1, duration: '1s', rat: 1 }], topology: 't.yaml' })).not.toEqual([]);
    expect(violations(schema, { name: 'x', phases: [{ type: 'plateau' }], topology: 't.yaml' })).not.toEqual([]);
  });
});
