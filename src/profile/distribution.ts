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
    if (d.type === 'uniform' && d.min > d.max) ctx.addIssue({ code: 'custom', path: ['max'], message: `expected max ≥ min (${d.min})` });
  });
  return z
    .union([value.transform((v) => ({ type: 'fixed' as const, value: v })), shaped])
    .meta({ description: `${what}: a single value, or {type: fixed|uniform|exponential|lognormal|empirical|mixture, …}.` }) as unknown as z.ZodType<
    Distribution,
    unknown
  >;
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
