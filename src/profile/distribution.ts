import { z } from 'zod';
import { duration } from './units.ts';

/**
 * Distributions of a non-negative quantity: a batch size, a value size in bytes, a service time.
 * The same shapes serve counts (plain numbers) and durations (resolved to µs), so one sampler
 * implementation covers both.
 */
function variants(value: z.ZodType<number, unknown>) {
  const bounds = { min: value.optional(), max: value.optional() };
  return [
    z.strictObject({ type: z.literal('fixed'), value }),
    z.strictObject({ type: z.literal('uniform'), min: value, max: value }),
    z.strictObject({ type: z.literal('exponential'), mean: value, ...bounds }),
    z.strictObject({
      type: z.literal('lognormal'),
      median: value.meta({ description: 'exp(mu): half the draws fall below it.' }),
      sigma: z.number().positive().meta({ description: 'Standard deviation of the underlying normal.' }),
      ...bounds,
    }),
    z.strictObject({
      type: z.literal('empirical'),
      values: z.array(z.strictObject({ value, weight: z.number().positive() })).min(1),
    }),
  ] as const;
}

function distribution(value: z.ZodType<number, unknown>, what: string) {
  const simple = variants(value);
  const component = z.discriminatedUnion(
    'type',
    simple.map((v) => v.extend({ weight: z.number().positive().meta({ description: 'Relative weight of this component.' }) })) as unknown as typeof simple,
  );
  const mixture = z.strictObject({
    type: z.literal('mixture'),
    of: z.array(component).min(1).meta({ description: 'Components, each a distribution with a weight, e.g. 99.99% uniform 1–50 and 0.01% uniform 15000–20000.' }),
  });
  const shaped = z.discriminatedUnion('type', [...simple, mixture]).superRefine((d, ctx) => {
    // Bounds are checked on each mixture component too: a component is a distribution of its own.
    const parts = d.type === 'mixture' ? d.of.map((c, i) => [c, ['of', i]] as const) : ([[d, []]] as const);
    for (const [part, at] of parts) {
      const min = boundsOf(part);
      if (min !== undefined) ctx.addIssue({ code: 'custom', path: [...at, 'max'], message: `expected max ≥ min (${min})` });
    }
  });
  return z
    .union([value.transform((v) => ({ type: 'fixed' as const, value: v })), shaped])
    .meta({ description: `${what}: a single value, or {type: fixed|uniform|exponential|lognormal|empirical|mixture, …}.` }) as unknown as z.ZodType<Distribution, unknown>;
}

/** The `min` of a distribution whose `max` is below it, or undefined when its bounds are consistent or absent. */
function boundsOf(d: { type: string; min?: number | undefined; max?: number | undefined }): number | undefined {
  const bounded = d.type === 'uniform' || d.type === 'exponential' || d.type === 'lognormal';
  return bounded && d.min !== undefined && d.max !== undefined && d.min > d.max ? d.min : undefined;
}

const count = z.number().nonnegative() as z.ZodType<number, unknown>;
export const sizeDistribution = distribution(count, 'A size or count distribution');
export const timeDistribution = distribution(duration as z.ZodType<number, unknown>, 'A duration distribution');

interface Bounds {
  min?: number | undefined;
  max?: number | undefined;
}
export type SimpleDistribution =
  | { type: 'fixed'; value: number }
  | { type: 'uniform'; min: number; max: number }
  | ({ type: 'exponential'; mean: number } & Bounds)
  | ({ type: 'lognormal'; median: number; sigma: number } & Bounds)
  | { type: 'empirical'; values: { value: number; weight: number }[] };
/** A validated distribution; durations are already in µs. */
export type Distribution = SimpleDistribution | { type: 'mixture'; of: (SimpleDistribution & { weight: number })[] };
