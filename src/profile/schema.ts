import { z } from 'zod';
import { TopologySchema } from './topology/index.ts';
import { sizeDistribution, timeDistribution } from './distribution.ts';
import { PROTOCOL_SECTIONS, parseTarget, TARGET_FORMS } from './protocols/registry.ts';
import { TargetError } from './target.ts';
import { duration, rate, share } from './units.ts';

const arrivals = z.enum(['constant', 'poisson']).meta({
  description: 'constant: evenly spaced sends; poisson: exponential gaps (independent users). Both are open loop.',
});

/** A phase of the rate curve. Times inside a phase are relative to its own start. */
export const PhaseSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('steady'), rate, duration }).meta({ description: 'Constant rate.' }),
  z.strictObject({ type: z.literal('ramp'), from: rate, to: rate, duration }).meta({ description: 'Linear ramp from one rate to another.' }),
  z
    .strictObject({
      type: z.literal('step'),
      from: rate,
      to: rate,
      steps: z.number().int().min(1).meta({ description: 'Number of equal stairs from `from` to `to`.' }),
      duration,
    })
    .meta({ description: 'Staircase: `steps` equal stairs, each duration/steps long, the first at `from`, the last at `to`.' }),
  z
    .strictObject({
      type: z.literal('spike'),
      base: rate,
      peak: rate,
      rise: duration.meta({ description: 'Time to climb linearly from base to peak.' }),
      hold: duration.meta({ description: 'Time at peak.' }),
      decay: duration.meta({ description: 'Time to fall linearly back to base.' }),
      duration: duration.optional().meta({ description: 'Whole phase; defaults to rise+hold+decay, the rest runs at base.' }),
    })
    .meta({ description: 'A sudden spike: base → peak → base.' }),
]);

export const MultiplierSchema = z
  .strictObject({
    at: duration,
    until: duration.optional().meta({ description: 'End of the multiplier; absent = to the end of the run.' }),
    factor: z.number().nonnegative().meta({ description: 'Rate multiplier, e.g. 2 doubles the traffic; 0 silences it.' }),
    clients: z.array(z.string()).min(1).optional().meta({ description: 'Only these clients; absent = every client.' }),
    label: z.string().optional().meta({ description: 'Name shown in reports, e.g. failover.' }),
  })
  .meta({ description: 'Multiply the rate from `at` (e.g. failover: another data centre’s traffic lands here).' });

const MixEntrySchema = z.strictObject({
  kind: z.string().min(1).meta({ description: 'Request kind, e.g. get, set, getPostRecord.' }),
  weight: z.number().positive().meta({ description: 'Relative weight of this kind in the mix.' }),
  batch: sizeDistribution.optional().meta({ description: 'Keys per request for this kind.' }),
  valueSize: sizeDistribution.optional().meta({ description: 'Value bytes for this kind.' }),
  ttl: timeDistribution
    .optional()
    .meta({ description: 'Time to live the writes of this kind set (memcached: the expiry, whole seconds, rounded up; 0 never expires), e.g. 300s or an empirical mix of TTLs.' }),
});
const mix = z.array(MixEntrySchema).min(1).meta({ description: 'Request kinds with weights.' });

const PopularitySchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('uniform') }),
  z.strictObject({ type: z.literal('zipf'), s: z.number().positive().meta({ description: 'Zipf exponent: P(rank k) ∝ k^-s.' }) }),
  z.strictObject({
    type: z.literal('hotspot'),
    keyFraction: share.meta({ description: 'Fraction of the keyspace that is hot (y).' }),
    trafficShare: share.meta({ description: 'Fraction of traffic that goes to the hot keys (x).' }),
  }),
]);

export const HotKeySchema = z
  .strictObject({
    key: z.string().min(1).meta({ description: 'The key’s name, e.g. tweet:oscars-selfie.' }),
    start: duration.meta({ description: 'When its share starts to rise.' }),
    rise: duration.meta({ description: 'Linear rise from 0 to peak.' }),
    peak: share.meta({ description: 'Share of all key draws at the peak.' }),
    hold: duration.default(0).meta({ description: 'Time at peak before decay.' }),
    halfLife: duration.optional().meta({ description: 'Exponential decay half-life after the hold; absent = stays at peak.' }),
    clients: z.array(z.string()).min(1).optional().meta({ description: 'Only these clients draw it; absent = every client.' }),
  })
  .meta({ description: 'One named hot key whose share of traffic changes over time (the viral item).' });

const KeysSchema = z
  .strictObject({
    count: z.number().int().min(1).optional().meta({ description: 'Size of the keyspace (n); with keys.file, the number of keys in the file.' }),
    popularity: PopularitySchema.default({ type: 'uniform' }).meta({ description: 'How key draws spread over the keyspace: uniform, zipf or hotspot.' }),
    prefix: z.string().default('key:').meta({ description: 'Prepended to every generated key name.' }),
    hot: z.array(HotKeySchema).default([]).meta({ description: 'Named hot keys whose share of traffic rises and decays over time.' }),
    oneHitWonders: share.optional().meta({
      description:
        'Share of requests whose keys are one-hit wonders: each such key (<prefix>once:<n>) is asked for once and never again (ids recycle after 2^20 of them), drawn on a stream of its own. Production caches see many (Yang et al., OSDI 2020); `trace fit` sets it from the trace.',
    }),
    file: z.string().min(1).optional().meta({
      description:
        'A CSV of real keys, relative to this profile: a `key` column and an optional `weight` column (no header: key, then weight). The keys replace count and prefix; their weights replace popularity (without weights, popularity ranks them in file order).',
    }),
  })
  .superRefine((keys, ctx) => {
    if (keys.count === undefined && keys.file === undefined)
      ctx.addIssue({ code: 'custom', path: ['count'], message: 'missing required field "count": expected a whole number ≥ 1 (or keys.file)' });
  })
  // The loader sets the count of a key file's keys once it has read them.
  .transform((keys) => ({ ...keys, count: keys.count ?? 0 }));

export const ClientSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9_.-]+$/, 'expected letters, digits, _ . -')
      .meta({ description: 'Unique client name, used by multipliers, hot keys, SLOs and reports.' }),
    share: z.number().positive().optional().meta({ description: 'Weight of this client in the profile’s phase rate.' }),
    rate: rate.optional().meta({ description: 'This client’s own constant rate, on top of the phases.' }),
    phases: z.array(PhaseSchema).min(1).optional().meta({ description: 'This client’s own rate curve.' }),
    start: duration.default(0),
    end: duration.optional(),
    arrivals: arrivals.optional(),
    instances: z.number().int().min(1).default(1).meta({ description: 'Independent client instances (processes) in this group.' }),
    mix: mix.optional(),
    batch: sizeDistribution.optional(),
    valueSize: sizeDistribution.optional(),
  })
  .superRefine((c, ctx) => {
    const given = [c.share, c.rate, c.phases].filter((v) => v !== undefined).length;
    if (given !== 1) ctx.addIssue({ code: 'custom', path: ['share'], message: 'expected exactly one of share, rate, phases' });
  })
  .meta({ description: 'A named caller group with its own rate or share and its own request shapes.' });

const LatencyCheckSchema = z.strictObject({
  percentile: z.number().gt(0).lt(100).meta({ description: 'e.g. 99 or 99.9' }),
  max: duration.meta({ description: 'Highest tolerated latency at that percentile.' }),
  kind: z.string().optional().meta({ description: 'Only requests of this kind (from a mix).' }),
  client: z.string().optional().meta({ description: 'Only requests of this client.' }),
});

export const SloSchema = z.strictObject({
  latency: z.array(LatencyCheckSchema).default([]).meta({ description: 'Latency limits, e.g. [{percentile: 99, max: 50ms}].' }),
  errorRate: share.optional().meta({ description: 'Highest tolerated fraction of failed requests.' }),
});

/** Size percentiles observed in production (bytes for values, keys for batches); give the ones you know. */
const ObservedSizesSchema = z
  .strictObject({
    p50: z.number().nonnegative().optional(),
    p90: z.number().nonnegative().optional(),
    p99: z.number().nonnegative().optional(),
    p999: z.number().nonnegative().optional(),
    p9999: z.number().nonnegative().optional(),
    max: z.number().nonnegative().optional(),
  })
  .meta({ description: 'Percentiles observed in production, e.g. {p50: 10, p99: 50, max: 20000}.' });

/**
 * What production looks like, so realism flags compare the test with it instead of with rules of
 * thumb. Every field is optional; `--production-sample file.csv` derives most of them.
 */
export const ProductionSchema = z
  .strictObject({
    peakRps: rate.optional().meta({ description: 'Expected peak rate here, requests per second: what qualification measures headroom against.' }),
    dataCentres: z.number().int().min(1).optional().meta({ description: 'Data centres sharing the traffic; losing one shifts its share onto the others (N+1).' }),
    topKeyShares: z
      .array(z.strictObject({ keys: z.number().int().min(1).meta({ description: 'The most popular N keys.' }), share: share.meta({ description: 'Their share of key lookups.' }) }))
      .min(1)
      .optional()
      .meta({ description: 'Key skew: share of lookups on the top N keys, e.g. [{keys: 1, share: 0.3}].' }),
    batchSize: ObservedSizesSchema.optional().meta({ description: 'Keys per request.' }),
    valueSize: ObservedSizesSchema.optional().meta({ description: 'Value bytes.' }),
    connectionsPerClient: z.number().int().min(1).optional().meta({ description: 'Connections each client instance keeps per server (1–2 with pipelining).' }),
    clientInstances: z.number().int().min(1).optional().meta({ description: 'Client instances (processes) calling the system.' }),
    shards: z.number().int().min(1).optional().meta({ description: 'Cache shards / nodes in the production cluster.' }),
    hitRatio: share.optional().meta({ description: 'Cache hit ratio observed in production.' }),
  })
  .meta({ description: 'What production looks like: realism flags compare the test with it.' });

/**
 * The limits past which the load generator, not the target, is taken to have shaped a run (real
 * targets only): beyond any of them the verdict is INVALID. The defaults suit a dedicated machine;
 * a busy shared one may need looser limits, and loosening one raises a warning flag of its own.
 */
export const GeneratorLimitsSchema = z
  .strictObject({
    eventLoopLagP99: duration.default(50_000).meta({ description: 'Event-loop lag p99 of a sending thread above this: timers and socket reads ran late (default 50ms).' }),
    cpu: share.default(0.9).meta({ description: 'CPU of a sending thread above this fraction of one core: it had no slack (default 0.9).' }),
    dispatchLatenessP99: duration.default(10_000).meta({ description: 'Pacer lateness p99 (time due → handed to the transport) above this: the schedule slipped (default 10ms).' }),
    connectionWaitLatenessP99: duration.default(10_000).meta({
      description:
        'Requests that waited for a free connection with send lateness p99 above this: the target saturated at the test’s concurrency (reported; the run is judged on its SLO, never INVALID for it) (default 10ms).',
    }),
  })
  .meta({ description: 'Generator-health limits (real targets): past any of them the run is INVALID. Looser than the defaults warns.' });

/** The generator limits as the schema's defaults give them (µs and fractions of a core). */
export const DEFAULT_GENERATOR_LIMITS: GeneratorLimits = GeneratorLimitsSchema.parse({});

/**
 * How big a plan may be before `run`, `qualify` and `sweep` refuse it (before any traffic; `--force`
 * overrides). The defaults let every shipped profile run and stop a typo (rate 1e9, batch 1e7,
 * 100000h) from growing until the process is killed.
 */
export const LimitsSchema = z
  .strictObject({
    maxRequests: z.number().positive().default(100_000_000).meta({ description: 'Most requests one run (a qualification step, a sweep point) may schedule, warm-up included.' }),
    maxBatch: z.number().positive().default(100_000).meta({ description: 'Most keys one request may carry (the batch distribution’s upper bound).' }),
    maxIntervals: z.number().positive().default(1_000_000).meta({ description: 'Most recorder intervals a run may close (duration / --interval).' }),
    maxMemoryMb: z.number().positive().default(2048).meta({ description: 'Largest estimated memory of a run, MB (see docs/architecture.md, the plan check).' }),
    maxRuns: z.number().positive().default(10_000).meta({ description: 'Most runs of one command: a qualification’s steps, a sweep’s points.' }),
    maxModelState: z.number().int().positive().default(1_000_000).meta({
      description:
        'Model runs: most pending state at once — events waiting in the heap plus calls and server-side operations in flight (~500 bytes each). Past it the modelled system has diverged (its queues grow without bound): the run stops there with the verdict DIVERGED (exit 4), its results so far written. Checked while the model runs, not by the plan check.',
    }),
    maxDurationS: z.number().positive().default(604_800).meta({ description: 'Longest run, warm-up included (all of a qualification’s or sweep’s runs together), seconds.' }),
  })
  .meta({ description: 'Limits of the plan check: a plan above one is refused before any traffic, naming the figure and the limit.' });

/** A target string, checked by the one target parser so the schema and --target agree on what is valid. */
const target = z.string().superRefine((text, ctx) => {
  try {
    parseTarget(text);
  } catch (error) {
    if (!(error instanceof TargetError)) throw error;
    ctx.addIssue({ code: 'custom', message: error.message });
  }
});

/** Longest profile name: it is a folder name under reports/, well inside every file system's 255 bytes. */
export const PROFILE_NAME_MAX = 100;

export const ProfileSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]*$/, 'expected lower-case letters, digits and dashes')
      // It names the report folder: a file name on every file system.
      .max(PROFILE_NAME_MAX, `expected at most ${PROFILE_NAME_MAX} characters`)
      .meta({ description: 'Profile name, e.g. checkout-peak; used in report directories.' }),
    description: z.string().default('').meta({ description: 'Free text shown in reports.' }),
    seed: z.number().int().nonnegative().default(1).meta({ description: 'Seed of every random draw; the same seed replays the same run.' }),
    warmup: duration.default(0).meta({ description: 'Traffic at the first phase’s rate before measuring starts.' }),
    duration: duration.optional().meta({ description: 'Measured duration; defaults to the sum of the phases.' }),
    arrivals: arrivals.default('poisson'),
    phases: z.array(PhaseSchema).min(1).meta({ description: 'The rate curve: phases run one after another, e.g. a ramp then a steady phase.' }),
    multipliers: z.array(MultiplierSchema).default([]).meta({ description: 'Rate multipliers over time windows.' }),
    mix: mix.default([{ kind: 'get', weight: 1 }]),
    keys: KeysSchema.default({ count: 100_000, popularity: { type: 'uniform' }, prefix: 'key:', hot: [] }).meta({
      description: 'The keyspace: its size, how popular each key is, and named hot keys.',
    }),
    batch: sizeDistribution.default({ type: 'fixed', value: 1 }).meta({ description: 'Keys per request.' }),
    valueSize: sizeDistribution.default({ type: 'fixed', value: 100 }).meta({ description: 'Value bytes per request.' }),
    clients: z
      .array(ClientSchema)
      .min(1)
      .default([{ name: 'default', share: 1, start: 0, instances: 1 }])
      .meta({ description: 'Caller groups; absent = one client named default taking the whole phase rate.' }),
    production: ProductionSchema.optional().meta({ description: 'Observed production figures (peak rate, key skew, sizes, connections, data centres) the test is compared with.' }),
    slo: SloSchema.default({ latency: [] }).meta({ description: 'Service-level objectives the run is judged against.' }),
    target: target.default('model').meta({ description: `Where the traffic goes: ${TARGET_FORMS}; --target overrides it.` }),
    // prefault: an absent section is parsed from {}, so the parsed profile carries every protocol default.
    ...PROTOCOL_SECTIONS,
    generator: GeneratorLimitsSchema.prefault({}).meta({ description: 'Limits on the load generator’s own health (real targets); past one the run is INVALID.' }),
    limits: LimitsSchema.prefault({}).meta({ description: 'How big a plan may be before it is refused (override one run with --force).' }),
    topology: z
      .union([z.string().min(1), TopologySchema])
      .optional()
      .meta({ description: 'Model topology: a path relative to this profile, or the topology inline. Needed only to run on the model; a real target needs none.' }),
  })
  .meta({ title: 'stampede profile', description: 'A traffic profile: the shape of the load, not a tool invocation.' });

export type ProfileInput = z.input<typeof ProfileSchema>;
export type ParsedProfile = z.output<typeof ProfileSchema>;
export type Phase = z.output<typeof PhaseSchema>;
export type Multiplier = z.output<typeof MultiplierSchema>;
export type HotKey = z.output<typeof HotKeySchema>;
export type ClientSpec = z.output<typeof ClientSchema>;
export type Popularity = z.output<typeof PopularitySchema>;
export type MixEntry = z.output<typeof MixEntrySchema>;
export type Slo = z.output<typeof SloSchema>;
export type Production = z.output<typeof ProductionSchema>;
export type PlanLimits = z.output<typeof LimitsSchema>;
/** The profile's `generator:` section: generator-health limits, durations in µs, CPU in fractions of a core. */
export type GeneratorLimits = z.output<typeof GeneratorLimitsSchema>;
