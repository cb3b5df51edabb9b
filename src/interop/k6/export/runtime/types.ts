/** The types of the emitted script's data: the profile's shapes as the runtime reads them. */
export const TYPES_SOURCE = `
type SimpleDistribution =
  | { type: 'fixed'; value: number }
  | { type: 'uniform'; min: number; max: number }
  | { type: 'exponential'; mean: number; min?: number; max?: number }
  | { type: 'lognormal'; median: number; sigma: number; min?: number; max?: number }
  | { type: 'empirical'; values: { value: number; weight: number }[] };
type Distribution = SimpleDistribution | { type: 'mixture'; of: (SimpleDistribution & { weight: number })[] };

type Popularity = { type: 'uniform' } | { type: 'zipf'; s: number } | { type: 'hotspot'; keyFraction: number; trafficShare: number };

/** A named hot key: its share rises from 0 to peak over riseUs from startUs (µs after the warm-up), holds, then halves every halfLifeUs. */
interface HotKey {
  key: string;
  startUs: number;
  riseUs: number;
  peak: number;
  holdUs: number;
  halfLifeUs: number | null;
  /** Only these clients draw it; null = every client. */
  clients: string[] | null;
}

interface Keyspace {
  count: number;
  prefix: string;
  popularity: Popularity;
  hot: HotKey[];
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
