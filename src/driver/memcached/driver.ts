import { keyIds } from '../../schedule/keys.ts';
import type { ScheduledRequest } from '../../schedule/types.ts';
import type { MemcachedSettings } from '../../profile/protocols/memcached/section.ts';
import type { ServerAddress } from '../../profile/protocols/address.ts';
import type { MemcachedTarget } from '../../profile/protocols/memcached/spec.ts';
import { OpenLoopRun, openLoopOptions } from '../open-loop.ts';
import { dialBeforeStart } from '../start-barrier.ts';
import type { Transport, TransportRun } from '../transport.ts';
import { primeOpenLoop } from '../prime.ts';
import type { DriverReport, MemcachedTransportReport } from '../../recorder/driver-report.ts';
import type { GaugeSpec } from '../../recorder/gauges.ts';
import type { Driver, DriverOptions, RunContext } from '../types.ts';
import { operationOfKind } from '../../profile/protocols/memcached/section.ts';
import { BinaryConnection, OP_GET, OP_NOOP, OP_SET, OP_TOUCH, STATUS_NOT_FOUND, STATUS_OK, type MemcachedOwner } from './binary-connection.ts';
import { isRead, OPCODE_OF, OPERATION_INDEX, OperationCounts } from './operations.ts';
import { Sharding } from '../sharded/sharding.ts';
import { ShardedTally } from '../sharded/tally.ts';
import { serversInRingAtStart, withDialFailures } from '../sharded/ring.ts';

/**
 * Value bytes generated once; every store writes a prefix of it. ASCII zeros, so a key that was
 * set is a number an incr or decr can count on. memcached's default item limit is 1 MiB.
 */
const VALUE_SLAB_BYTES = 1024 * 1024 - 512;
const VALUE_BYTE = 0x30;
/**
 * The CAS unique a cas sends for a key whose unique the driver has not seen: memcached's uniques
 * count up from 1 and never reach it, so the server counts that cas as cas_badval (the key is
 * there) or cas_misses (it is not), never as a store.
 */
const UNSEEN_UNIQUE = 0xffffffff;

/**
 * The `memcached://h1:p1,h2:p2` target: every operation of MEMCACHED_OPERATIONS over the binary
 * protocol with client-side sharding chosen by the profile. A get with a batch of keys becomes
 * one quiet multi-get per shard it touches (getkq… noop) and completes when every shard answered.
 * A cas carries the CAS unique of the key's last answer on this connection set (a get, a store, a
 * counter), as a client's gets-then-cas would; a key never answered gets UNSEEN_UNIQUE.
 */
export function createMemcachedDriver(target: MemcachedTarget, options: DriverOptions = {}): Driver {
  return { target: target.text, run: (context) => runMemcached(context, target, options) };
}

async function runMemcached(context: RunContext, target: MemcachedTarget, options: DriverOptions): Promise<DriverReport> {
  const settings = context.profile.memcached;
  const run = new OpenLoopRun(context, { ...openLoopOptions(target, settings, options), prime: () => primeOpenLoop(context) });
  const inRing = serversInRingAtStart(target.servers.length, context.profile.topology?.timeline);
  return run.execute(new MemcachedTransport(run, settings, target.servers, inRing), context.signal);
}

/** memcached reads an expiry over 30 days as a Unix time, not a duration. */
const RELATIVE_EXPIRY_LIMIT_S = 30 * 24 * 3600;

/** A TTL as memcached's expiry field: whole seconds rounded up (a TTL under a second still expires), absolute past 30 days; 0 never expires. */
function expiryOf(ttlUs: number): number {
  if (ttlUs <= 0) return 0;
  const seconds = Math.ceil(ttlUs / 1_000_000);
  return seconds <= RELATIVE_EXPIRY_LIMIT_S ? seconds : Math.floor(Date.now() / 1000) + seconds;
}

class MemcachedTransport implements Transport, MemcachedOwner {
  private readonly sharding: Sharding;
  /** connections[shard * perShard + i] */
  private readonly connections: BinaryConnection[];
  private readonly perShard: number;
  private readonly nextOnShard: Int32Array;
  private readonly operationOfKind: Int8Array;
  private readonly slab = Buffer.alloc(VALUE_SLAB_BYTES, VALUE_BYTE);
  /** Per slot: its operation and key (single-key requests); the rest of its state is the tally's. */
  private readonly operationOf: Int8Array;
  private readonly keyOf: Int32Array;
  /** Scratch: keys of the current request grouped by shard. */
  private readonly shardTouched: Int32Array;
  private readonly tally: ShardedTally<BinaryConnection>;
  private readonly serverErrors = new Map<number, number>();
  private readonly answers = new OperationCounts();
  /** Per key id: the last CAS unique seen (high and low halves); empty unless a kind is sent as cas. */
  private readonly uniques: Uint32Array;
  readonly ring: Transport['ring'];

  constructor(
    private readonly run: TransportRun,
    settings: MemcachedSettings,
    servers: ServerAddress[],
    inRing: number,
  ) {
    const plan = run.schedule.plan;
    this.sharding = new Sharding(settings.hash, settings.distribution, servers, plan.keyspace, inRing);
    this.ring = { setInRing: (server, inRing) => this.sharding.setInRing(server, inRing) };
    this.perShard = settings.connectionsPerShard;
    this.connections = servers.flatMap((s) => Array.from({ length: this.perShard }, () => new BinaryConnection(s.host, s.port, this)));
    this.nextOnShard = new Int32Array(servers.length);
    this.operationOfKind = Int8Array.from(plan.kinds, (kind) => OPERATION_INDEX[operationOfKind(settings.operations, kind)]);
    const sendsCas = this.operationOfKind.includes(OPERATION_INDEX.cas);
    this.uniques = new Uint32Array(sendsCas ? 2 * keyIds(plan.keyspace) : 0);
    const cap = run.inFlightCap;
    this.operationOf = new Int8Array(cap);
    this.keyOf = new Int32Array(cap);
    this.shardTouched = new Int32Array(servers.length);
    this.tally = new ShardedTally('memcached', this.connections, this.perShard, run, settings.timeout, (slot, found, missed) =>
      this.answers.keys(this.operationOf[slot]!, found, missed),
    );
  }

  async prepare(): Promise<void> {
    try {
      await dialBeforeStart(this.connections);
    } catch (error) {
      throw withDialFailures(error, this.connections, 'memcached');
    }
  }

  /** Writes are already gathered per connection until the end of the tick. */
  beginBatch(): void {}

  submit(slot: number, request: ScheduledRequest): void {
    const op = this.operationOfKind[request.kind]!;
    const ks = this.run.schedule.plan.keyspace;
    this.operationOf[slot] = op;
    if (!isRead(op) || request.batchSize === 1) {
      const keyId = request.keys[0] ?? 0;
      const shard = this.sharding.shardOf(keyId);
      this.tally.keysByShard[shard]!++;
      this.keyOf[slot] = keyId;
      this.tally.begin(slot, 1, isRead(op) ? 1 : 0);
      this.send(this.connectionFor(shard), slot, op, ks.keyName(keyId), keyId, request);
      return;
    }
    // Multi-key get: one quiet get per key on its shard, then a noop per shard touched.
    const touched = this.shardTouched;
    touched.fill(0);
    for (let i = 0; i < request.batchSize; i++) {
      const keyId = request.keys[i]!;
      const shard = this.sharding.shardOf(keyId);
      this.tally.keysByShard[shard]!++;
      touched[shard] = 1;
      this.connectionFor(shard, false).getQuiet(slot, ks.keyName(keyId));
    }
    let parts = 0;
    for (let s = 0; s < touched.length; s++) {
      if (touched[s] === 0) continue;
      parts++;
      this.connectionFor(s, true).noop(slot);
    }
    this.tally.begin(slot, parts, request.batchSize);
    if (parts === 0) this.run.complete(slot, 0, this.run.nowUs());
  }

  /** One single-key request on its connection: its opcode, and the extras its operation carries. */
  private send(c: BinaryConnection, slot: number, op: number, key: string, keyId: number, request: ScheduledRequest): void {
    const opcode = OPCODE_OF[op]!;
    if (opcode === OP_GET) c.get(slot, key);
    else if (op === OPERATION_INDEX.cas) {
      const high = this.uniques[2 * keyId] ?? 0;
      const low = this.uniques[2 * keyId + 1] ?? 0;
      const seen = high !== 0 || low !== 0;
      c.store(OP_SET, slot, key, this.slab, request.valueSize, expiryOf(request.ttlUs), seen ? high : UNSEEN_UNIQUE, seen ? low : UNSEEN_UNIQUE);
    } else if (op === OPERATION_INDEX.set || op === OPERATION_INDEX.add || op === OPERATION_INDEX.replace)
      c.store(opcode, slot, key, this.slab, request.valueSize, expiryOf(request.ttlUs));
    else if (op === OPERATION_INDEX.append || op === OPERATION_INDEX.prepend) c.concat(opcode, slot, key, this.slab, request.valueSize);
    else if (op === OPERATION_INDEX.incr || op === OPERATION_INDEX.decr) c.counter(opcode, slot, key);
    else if (opcode === OP_TOUCH) c.touch(slot, key, expiryOf(request.ttlUs));
    else c.delete(slot, key);
  }

  wired(token: number): void {
    this.tally.wired(token);
  }

  quietHit(token: number): void {
    this.tally.hit(token);
  }

  answered(token: number, opcode: number, status: number, casHigh: number, casLow: number): void {
    if (opcode === OP_NOOP) return this.tally.partDone(token);
    const op = this.operationOf[token]!;
    if (isRead(op)) {
      if (status === STATUS_OK) this.tally.hit(token);
      else if (status !== STATUS_NOT_FOUND) this.fail(token, status);
    } else if (!this.answers.answer(op, status)) this.fail(token, status);
    if (status === STATUS_OK && this.uniques.length > 0) this.remember(this.keyOf[token]!, casHigh, casLow);
    this.tally.partDone(token);
  }

  /** The key's CAS unique as its last answer gave it: the one its next cas sends. */
  private remember(keyId: number, casHigh: number, casLow: number): void {
    if (2 * keyId + 1 >= this.uniques.length) return;
    this.uniques[2 * keyId] = casHigh;
    this.uniques[2 * keyId + 1] = casLow;
  }

  failed(token: number, cause: string): void {
    this.tally.failed(token, cause);
  }

  private fail(token: number, status: number): void {
    this.serverErrors.set(status, (this.serverErrors.get(status) ?? 0) + 1);
    this.tally.serverError(token);
  }

  /** Round robin over the shard's connections; a multi-get keeps one connection per shard (advance = false). */
  private connectionFor(shard: number, advance = true): BinaryConnection {
    const i = this.nextOnShard[shard]!;
    if (advance || this.perShard === 1) this.nextOnShard[shard] = i + 1 === this.perShard ? 0 : i + 1;
    return this.connections[shard * this.perShard + i]!;
  }

  tick(nowUs: number): void {
    this.tally.timeOut(nowUs);
  }

  close(reason: number): void {
    this.tally.close(reason);
  }

  gauges(into: Record<string, number>): void {
    this.tally.gauges(into);
  }

  get gaugeSpecs(): readonly GaugeSpec[] {
    return this.tally.gaugeSpecs;
  }

  report(): MemcachedTransportReport {
    return {
      protocol: 'memcached',
      ...this.tally.counts(),
      serverErrors: Object.fromEntries([...this.serverErrors].map(([status, n]) => [`0x${status.toString(16).padStart(4, '0')}`, n])),
      operations: this.answers.toJSON(),
    };
  }

  waitedForConnection(): number {
    return 0;
  }
}
