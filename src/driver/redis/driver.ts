import type { ServerAddress } from '../../profile/protocols/address.ts';
import { REDIS_OPERATIONS, type RedisSettings, redisOperationOfKind } from '../../profile/protocols/redis/section.ts';
import type { RedisTarget, RedisTransportReport } from '../../profile/protocols/redis/spec.ts';
import type { DriverReport } from '../../recorder/driver-report.ts';
import type { GaugeSpec } from '../../recorder/gauges.ts';
import type { ScheduledRequest } from '../../schedule/types.ts';
import { OpenLoopRun, openLoopOptions } from '../open-loop.ts';
import { primeOpenLoop } from '../prime.ts';
import { ShardedTally } from '../sharded/tally.ts';
import { serversInRingAtStart, withDialFailures } from '../sharded/ring.ts';
import { Sharding } from '../sharded/sharding.ts';
import { dialBeforeStart } from '../start-barrier.ts';
import type { Transport, TransportRun } from '../transport.ts';
import type { Driver, DriverOptions, RunContext } from '../types.ts';
import { CMD_GET, CMD_MGET, CMD_SET, RespConnection, type RedisOwner } from './resp-connection.ts';

/** Value bytes generated once; every SET writes a prefix of it (Redis takes up to 512 MB; the mix's sizes are far below). */
const VALUE_SLAB_BYTES = 1024 * 1024;
const VALUE_BYTE = 0x30;
/** The command of each REDIS_OPERATIONS entry. */
const COMMAND_OF = Uint8Array.from(REDIS_OPERATIONS, (op) => (op === 'set' ? CMD_SET : op === 'mget' ? CMD_MGET : CMD_GET));

/**
 * The `redis://h1:p1,h2:p2` target: GET, SET and MGET over RESP2 with client-side sharding chosen
 * by the profile (the same hashes and ring as memcached's). A read with a batch of keys — or a kind
 * sent as mget — becomes one MGET per shard it touches and completes when every shard answered.
 */
export function createRedisDriver(target: RedisTarget, options: DriverOptions = {}): Driver {
  return { target: target.text, run: (context) => runRedis(context, target, options) };
}

async function runRedis(context: RunContext, target: RedisTarget, options: DriverOptions): Promise<DriverReport> {
  const settings = context.profile.redis;
  const run = new OpenLoopRun(context, { ...openLoopOptions(target, settings, options), prime: () => primeOpenLoop(context) });
  const inRing = serversInRingAtStart(target.servers.length, context.profile.topology?.timeline);
  return run.execute(new RedisTransport(run, settings, target.servers, inRing), context.signal);
}

class RedisTransport implements Transport, RedisOwner {
  private readonly sharding: Sharding;
  /** connections[shard * perShard + i] */
  private readonly connections: RespConnection[];
  private readonly perShard: number;
  private readonly nextOnShard: Int32Array;
  private readonly commandOfKind: Uint8Array;
  private readonly slab = Buffer.alloc(VALUE_SLAB_BYTES, VALUE_BYTE);
  /** Scratch for a batch: each key's shard, keys per shard, and the connection each touched shard's MGET went on. */
  private keyShard = new Int32Array(64);
  private readonly keysOnShard: Int32Array;
  private readonly mgetOn: Int32Array;
  private readonly tally: ShardedTally<RespConnection>;
  private readonly serverErrors = new Map<string, number>();
  /** Replies by command (CMD_*), error replies included. */
  private readonly replies = new Float64Array(3);
  /** Requests that found every connection of a shard they needed at its pipelining depth. */
  private waited = 0;
  private readonly pipelining: number | undefined;
  private waitedNow = false;
  readonly ring: Transport['ring'];

  constructor(
    private readonly run: TransportRun,
    settings: RedisSettings,
    servers: ServerAddress[],
    inRing: number,
  ) {
    const plan = run.schedule.plan;
    this.sharding = new Sharding(settings.hash, settings.distribution, servers, plan.keyspace, inRing);
    this.ring = { setInRing: (server, member) => this.sharding.setInRing(server, member) };
    this.perShard = settings.connectionsPerShard;
    this.pipelining = settings.pipelining;
    const depth = settings.pipelining ?? Number.POSITIVE_INFINITY;
    this.connections = servers.flatMap((s) => Array.from({ length: this.perShard }, () => new RespConnection(s.host, s.port, this, depth)));
    this.nextOnShard = new Int32Array(servers.length);
    this.commandOfKind = Uint8Array.from(plan.kinds, (kind) => COMMAND_OF[REDIS_OPERATIONS.indexOf(redisOperationOfKind(settings.operations, kind))]!);
    this.keysOnShard = new Int32Array(servers.length);
    this.mgetOn = new Int32Array(servers.length);
    this.tally = new ShardedTally('redis', this.connections, this.perShard, run, settings.timeout);
  }

  async prepare(): Promise<void> {
    try {
      await dialBeforeStart(this.connections);
    } catch (error) {
      throw withDialFailures(error, this.connections, 'Redis');
    }
  }

  /** Writes are already gathered per connection until the end of the tick. */
  beginBatch(): void {}

  submit(slot: number, request: ScheduledRequest): void {
    const command = this.commandOfKind[request.kind]!;
    const ks = this.run.schedule.plan.keyspace;
    if (command === CMD_SET || (command === CMD_GET && request.batchSize === 1)) {
      const keyId = request.keys[0] ?? 0;
      const shard = this.sharding.shardOf(keyId);
      this.tally.keysByShard[shard]!++;
      this.waitedNow = false;
      const c = this.connectionFor(shard);
      if (this.waitedNow) this.waited++;
      if (command === CMD_GET) {
        this.tally.begin(slot, 1, 1);
        c.get(slot, ks.keyName(keyId));
      } else {
        this.tally.begin(slot, 1, 0);
        c.set(slot, ks.keyName(keyId), this.slab, request.valueSize, request.ttlUs > 0 ? Math.ceil(request.ttlUs / 1000) : 0);
      }
      return;
    }
    this.multiGet(slot, request);
  }

  /** A read of several keys (or a kind sent as mget): one MGET per shard touched, its keys in request order. */
  private multiGet(slot: number, request: ScheduledRequest): void {
    const n = request.batchSize;
    const ks = this.run.schedule.plan.keyspace;
    if (this.keyShard.length < n) this.keyShard = new Int32Array(n * 2);
    const keyShard = this.keyShard;
    const onShard = this.keysOnShard;
    onShard.fill(0);
    for (let i = 0; i < n; i++) {
      const shard = this.sharding.shardOf(request.keys[i]!);
      keyShard[i] = shard;
      onShard[shard]!++;
      this.tally.keysByShard[shard]!++;
    }
    let parts = 0;
    this.waitedNow = false;
    for (let s = 0; s < onShard.length; s++) {
      if (onShard[s] === 0) continue;
      parts++;
      const c = this.connectionIndexFor(s);
      this.mgetOn[s] = c;
      this.connections[c]!.mget(slot, onShard[s]!);
    }
    if (this.waitedNow) this.waited++;
    for (let i = 0; i < n; i++) this.connections[this.mgetOn[keyShard[i]!]!]!.mgetKey(ks.keyName(request.keys[i]!));
    this.tally.begin(slot, parts, n);
    if (parts === 0) this.run.complete(slot, 0, this.run.nowUs());
  }

  wired(token: number): void {
    this.tally.wired(token);
  }

  hit(token: number): void {
    this.tally.hit(token);
  }

  answered(token: number, command: number, errorPrefix: string | undefined): void {
    this.replies[command]!++;
    if (errorPrefix !== undefined) {
      this.serverErrors.set(errorPrefix, (this.serverErrors.get(errorPrefix) ?? 0) + 1);
      this.tally.serverError(token);
    }
    this.tally.partDone(token);
  }

  failed(token: number, cause: string): void {
    this.tally.failed(token, cause);
  }

  /**
   * Round robin over the shard's connections, passing over those at their pipelining depth; when
   * all are, the command waits on the next in turn (and the request counts as having waited).
   */
  private connectionIndexFor(shard: number): number {
    const first = shard * this.perShard;
    let i = this.nextOnShard[shard]!;
    for (let tried = 1; this.connections[first + i]!.full; tried++) {
      if (tried === this.perShard) {
        this.waitedNow = true;
        i = this.nextOnShard[shard]!;
        break;
      }
      i = i + 1 === this.perShard ? 0 : i + 1;
    }
    this.nextOnShard[shard] = i + 1 === this.perShard ? 0 : i + 1;
    return first + i;
  }

  private connectionFor(shard: number): RespConnection {
    return this.connections[this.connectionIndexFor(shard)]!;
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

  report(): RedisTransportReport {
    const commands: RedisTransportReport['commands'] = {};
    // Each operation names its own command (COMMAND_OF is one to one): its replies are INFO commandstats' calls.
    REDIS_OPERATIONS.forEach((op, i) => {
      const n = this.replies[COMMAND_OF[i]!]!;
      if (n > 0) commands[op] = n;
    });
    return {
      protocol: 'redis',
      ...this.tally.counts(),
      serverErrors: Object.fromEntries(this.serverErrors),
      commands,
      connections: this.connections.length,
      ...(this.pipelining !== undefined && { pipelining: this.pipelining }),
    };
  }

  waitedForConnection(): number {
    return this.waited;
  }
}
