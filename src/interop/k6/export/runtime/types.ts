/** The types of the emitted script's data (the profile's shapes as the runtime reads them) and of the schedule modules it draws with. */
export const TYPES_SOURCE = `
type SimpleDistribution =
  | { type: 'fixed'; value: number }
  | { type: 'uniform'; min: number; max: number }
  | { type: 'exponential'; mean: number; min?: number; max?: number }
  | { type: 'lognormal'; median: number; sigma: number; min?: number; max?: number }
  | { type: 'empirical'; values: { value: number; weight: number }[] };
type Distribution = SimpleDistribution | { type: 'mixture'; of: (SimpleDistribution & { weight: number })[] };

type Popularity = { type: 'uniform' } | { type: 'zipf'; s: number } | { type: 'hotspot'; keyFraction: number; trafficShare: number };

/** A named hot key: its share rises from 0 to peak over rise µs from start (µs after the warm-up), holds, then halves every halfLife µs. */
interface HotKey {
  key: string;
  start: number;
  rise: number;
  peak: number;
  hold: number;
  halfLife?: number;
  /** Only these clients draw it; absent = every client. */
  clients?: string[];
}

interface Keyspace {
  count: number;
  prefix: string;
  popularity: Popularity;
  hot: HotKey[];
  /** Share of requests whose keys are one-hit wonders (absent: none). */
  oneHitWonders?: number;
}

interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
}

/** stampede's schedule modules as the bundle below hands them over: what this script draws with. */
interface ScheduleModules {
  Rng: new (seed: number) => Rng;
  /** The seed of the stream called \`label\` under the profile's seed. */
  deriveSeed(seed: number, label: string): number;
  /** One whole, non-negative number per call. */
  createSampler(d: Distribution, rng: Rng): () => number;
  /** Index i with probability weights[i] / Σ weights. */
  cumulativePicker(weights: number[], rng: Rng): () => number;
  /** Key ids of one client: prepare(t) once per request (hot-key shares at µs t after the warm-up), then draw() once per key. */
  KeyDrawer: new (keys: Keyspace, client: string, rng: Rng, onceRng?: Rng) => { prepare(measuredUs: number): void; draw(): number };
  /** Key names by id: 0..count-1 by popularity rank, count+j the hot key j. */
  createKeyspace(keys: Keyspace): { keyName(id: number): string };
}

/** What one client group sends: kinds with weights, and per kind its batch and value-size laws. */
interface ClientShape {
  name: string;
  kinds: string[];
  weights: number[];
  batch: Distribution[];
  valueSize: Distribution[];
}

interface RequestTemplate {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | null;
  /** The tag \`name\`: method and path as the profile writes them, one metric series per template (and no value read from the environment). */
  name: string;
}
`;
