import type { Profile } from '../profile/types.ts';
import { ArrivalStream } from './arrivals.ts';
import { KeyDrawer } from './keys.ts';
import { allKinds, buildPlan, resolveClients, type ResolvedClient } from './plan.ts';
import { Rng, deriveSeed } from './rng.ts';
import { createSampler, cumulativePicker, type Sampler } from './sample.ts';
import type { Plan, Schedule, ScheduledRequest } from './types.ts';

export type { Plan, Schedule, ScheduledRequest } from './types.ts';
export { emptyRequest } from './types.ts';

/** Views of the key buffer are cached per batch size up to this, so ordinary requests allocate nothing. */
const CACHED_VIEW_SIZES = 4096;

/** One client's generators; each has its own seeded streams so clients never disturb each other's draws. */
class ClientStream {
  readonly arrivals: ArrivalStream;
  readonly keys: KeyDrawer;
  readonly pickKind: () => number;
  readonly batch: Sampler[];
  readonly valueSize: Sampler[];
  readonly ttl: (Sampler | undefined)[];
  nextAtUs: number;

  constructor(
    readonly client: ResolvedClient,
    profile: Profile,
  ) {
    const name = client.spec.name;
    const content = new Rng(deriveSeed(profile.seed, `requests:${name}`));
    this.arrivals = new ArrivalStream(client.segments, client.arrivals === 'poisson', new Rng(deriveSeed(profile.seed, `arrivals:${name}`)));
    const once = profile.keys.oneHitWonders !== undefined ? new Rng(deriveSeed(profile.seed, `once:${name}`)) : undefined;
    this.keys = new KeyDrawer(profile.keys, name, new Rng(deriveSeed(profile.seed, `keys:${name}`)), once);
    this.pickKind = cumulativePicker(client.weights, content);
    this.batch = client.batch.map((d) => createSampler(d, content));
    this.valueSize = client.valueSize.map((d) => createSampler(d, content));
    // TTLs draw from a stream of their own: a profile that adds them changes no other draw.
    const ttls = new Rng(deriveSeed(profile.seed, `ttl:${name}`));
    this.ttl = client.ttl.map((d) => (d ? createSampler(d, ttls) : undefined));
    this.nextAtUs = this.arrivals.next();
  }
}

/**
 * The schedule of a profile: every client's arrivals merged in intended-time order (ties go to the
 * earlier client), each request filled with its kind, batch of keys and value size. Pure and seeded.
 */
export function createSchedule(profile: Profile): Schedule {
  const kinds = allKinds(profile);
  const clients = resolveClients(profile, kinds);
  const plan = buildPlan(profile, kinds, clients);
  const streams = clients.map((c) => new ClientStream(c, profile));
  return new MergedSchedule(plan, streams);
}

class MergedSchedule implements Schedule {
  private seq = 0;
  private keyBuffer = new Uint32Array(64);
  private views: (Uint32Array | undefined)[] = [];

  constructor(
    readonly plan: Plan,
    private readonly streams: ClientStream[],
  ) {}

  next(into: ScheduledRequest): boolean {
    let chosen = -1;
    let earliest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.streams.length; i++) {
      const t = this.streams[i]!.nextAtUs;
      if (t >= 0 && t < earliest) {
        earliest = t;
        chosen = i;
      }
    }
    if (chosen < 0) return false;
    const stream = this.streams[chosen]!;
    const option = stream.pickKind();
    const batchSize = Math.max(1, stream.batch[option]!());
    into.seq = this.seq++;
    into.intendedAtUs = earliest;
    into.client = chosen;
    into.kind = stream.client.kinds[option]!;
    into.batchSize = batchSize;
    into.valueSize = stream.valueSize[option]!();
    into.ttlUs = stream.ttl[option]?.() ?? 0;
    into.keys = this.fillKeys(stream.keys, batchSize, earliest - this.plan.warmupUs);
    stream.nextAtUs = stream.arrivals.next();
    return true;
  }

  private fillKeys(keys: KeyDrawer, batchSize: number, measuredUs: number): Uint32Array {
    if (batchSize > this.keyBuffer.length) {
      this.keyBuffer = new Uint32Array(Math.max(batchSize, this.keyBuffer.length * 2));
      this.views = [];
    }
    keys.prepare(measuredUs);
    for (let i = 0; i < batchSize; i++) this.keyBuffer[i] = keys.draw();
    if (batchSize >= CACHED_VIEW_SIZES) return this.keyBuffer.subarray(0, batchSize);
    return (this.views[batchSize] ??= this.keyBuffer.subarray(0, batchSize));
  }
}
