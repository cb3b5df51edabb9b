import { z } from 'zod';
import { ProfileSchema } from './schema.ts';

/**
 * profileJsonSchema is the JSON Schema (draft 2020-12) of a profile as written, for editors and `stampede schema`.
 * It describes the input side: durations as "30s" strings or numbers, optional fields with their defaults. Checks
 * zod cannot express (refinements, cross-field rules) are left out rather than failing the export.
 */
export function profileJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ProfileSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
