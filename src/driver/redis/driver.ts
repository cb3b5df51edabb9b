import type { ServerAddress } from '../../profile/protocols/address.ts';
import { REDIS_OPERATIONS, type RedisSettings, redisOperationOfKind } from '../../profile/protocols/redis/section.ts';
import type { RedisTarget, RedisTransportReport } from '../../profile/protocols/redis/spec.ts';
import { hitRatioOf, shardLoad } from '../../profile/protocols/sharded.ts';
import type { DriverReport } from '../../recorder/driver-report.ts';
import { SHARED_GAUGES, gaugeKey, type GaugeSpec } from '../../recorder/gauges.ts';
import type { ScheduledRequest } from '../../schedule/types.ts';
import { OpenLoopRun, openLoopOptions } from '../open-loop.ts';
import { primeOpenLoop } from '../prime.ts';
import { SHARDED_GAUGES } from '../sharded/gauges.ts';
import { serversInRingAtStart, withDialFailures } from '../sharded/ring.ts';
import { Sharding } from '../sharded/sharding.ts';
import { dialBeforeStart } from '../start-barrier.ts';
import { SOCKET_CAUSES, type Transport, type TransportRun } from '../transport.ts';
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
  /** Per slot: shard parts still unanswered, keys asked (reads), hits so far, first failure reason. */
  private readonly partsPending: Int32Array;
  private readonly keysAsked: Int32Array;
  private readonly hitsSoFar: Int32Array;
  private readonly failure: Int32Array;
  /** Scratch for a batch: each key's shard, keys per shard, and the connection each touched shard's MGET went on. */
  private keyShard = new Int32Array(64);
  private readonly keysOnShard: Int32Array;
  private readonly mgetOn: Int32Array;
  private readonly reasons = new Map<string, number>();
  private readonly serverErrorReason: number;
  private readonly keysByShard: Float64Array;
  private readonly lastKeysByShard: Float64Array;
  private readonly timeoutUs: number;
  private hits = 0;
  private misses = 0;
  private lastHits = 0;
  private lastMisses = 0;
  private readonly serverErrors = new Map<string, number>();
  /** Replies by command (CMD_*), error replies included. */
  private readonly replies = new Float64Array(3);
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
    this.connections = servers.flatMap((s) => Array.from({ length: this.perShard }, () => new RespConnection(s.host, s.port, this)));
    this.nextOnShard = new Int32Array(servers.length);
    this.commandOfKind = Uint8Array.from(plan.kinds, (kind) => COMMAND_OF[REDIS_OPERATIONS.indexOf(redisOperationOfKind(settings.operations, kind))]!);
    const cap = run.inFlightCap;
    this.partsPending = new Int32Array(cap);
    this.keysAsked = new Int32Array(cap);
    this.hitsSoFar = new Int32Array(cap);
    this.failure = new Int32Array(cap);
    this.keysOnShard = new Int32Array(servers.length);
    this.mgetOn = new Int32Array(servers.length);
    this.keysByShard = new Float64Array(servers.length);
    this.lastKeysByShard = new Float64Array(servers.length);
    this.timeoutUs = settings.timeout;
    for (const name of new Set(Object.values(SOCKET_CAUSES))) this.reasons.set(name, run.recorder.reason(name));
    this.serverErrorReason = run.recorder.reason('server_error');
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
    this.hitsSoFar[slot] = 0;
    this.failure[slot] = 0;
    if (command === CMD_SET || (command === CMD_GET && request.batchSize === 1)) {
      const keyId = request.keys[0] ?? 0;
      const shard = this.sharding.shardOf(keyId);
      this.keysByShard[shard]!++;
      this.partsPending[slot] = 1;
      const c = this.connectionFor(shard);
      if (command === CMD_GET) {
        this.keysAsked[slot] = 1;
        c.get(slot, ks.keyName(keyId));
      } else {
        this.keysAsked[slot] = 0;
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
      this.keysByShard[shard]!++;
    }
    let parts = 0;
    for (let s = 0; s < onShard.length; s++) {
      if (onShard[s] === 0) continue;
      parts++;
      const c = this.connectionIndexFor(s);
      this.mgetOn[s] = c;
      this.connections[c]!.mget(slot, onShard[s]!);
    }
    for (let i = 0; i < n; i++) this.connections[this.mgetOn[keyShard[i]!]!]!.mgetKey(ks.keyName(request.keys[i]!));
    this.keysAsked[slot] = n;
    this.partsPending[slot] = parts;
    if (parts === 0) this.run.complete(slot, 0, this.run.nowUs());
  }

  /** A request counts as sent when its first part reaches a connected socket. */
  wired(token: number): void {
    if (this.run.sentAtUs[token]! < 0) this.run.markSent(token, this.run.nowUs());
  }

  hit(token: number): void {
    this.hitsSoFar[token]!++;
  }

  answered(token: number, command: number, errorPrefix: string | undefined): void {
    this.replies[command]!++;
    if (errorPrefix !== undefined) {
      this.serverErrors.set(errorPrefix, (this.serverErrors.get(errorPrefix) ?? 0) + 1);
      if (this.failure[token] === 0) this.failure[token] = this.serverErrorReason;
    }
    this.partDone(token);
  }

  failed(token: number, cause: string): void {
    if (this.failure[token] === 0) this.failure[token] = this.reasonFor(SOCKET_CAUSES[cause] ?? 'socket_error');
    this.partDone(token);
  }

  private partDone(slot: number): void {
    if (--this.partsPending[slot]! > 0) return;
    const now = this.run.advance();
    const asked = this.keysAsked[slot]!;
    const failed = this.failure[slot]!;
    if (failed === 0 && asked > 0) {
      const hits = Math.min(this.hitsSoFar[slot]!, asked);
      this.hits += hits;
      this.misses += asked - hits;
    }
    this.run.complete(slot, failed, now);
  }

  private reasonFor(name: string): number {
    let reason = this.reasons.get(name);
    if (reason === undefined) {
      reason = this.run.recorder.reason(name);
      this.reasons.set(name, reason);
    }
    return reason;
  }

  /** Round robin over the shard's connections. */
  private connectionIndexFor(shard: number): number {
    const i = this.nextOnShard[shard]!;
    this.nextOnShard[shard] = i + 1 === this.perShard ? 0 : i + 1;
    return shard * this.perShard + i;
  }

  private connectionFor(shard: number): RespConnection {
    return this.connections[this.connectionIndexFor(shard)]!;
  }

  tick(nowUs: number): void {
    for (const c of this.connections) {
      const oldest = c.oldest;
      if (oldest >= 0 && nowUs - this.run.waitingSinceUs(oldest) > this.timeoutUs) c.abort('timeout');
    }
  }

  close(reason: number): void {
    for (const c of this.connections) c.close();
    // Slots still in flight end as unfinished; partsPending says which.
    const now = this.run.nowUs();
    for (let slot = 0; slot < this.partsPending.length; slot++) {
      if (this.partsPending[slot]! > 0) {
        this.partsPending[slot] = 0;
        this.run.complete(slot, reason, now);
      }
    }
  }

  gauges(into: Record<string, number>): void {
    let open = 0;
    for (const c of this.connections) if (c.connected) open++;
    into[gaugeKey(SHARED_GAUGES.openConnections, 'redis')] = open;
    const hits = this.hits - this.lastHits;
    const misses = this.misses - this.lastMisses;
    into[gaugeKey(SHARDED_GAUGES.hits, 'redis')] = hits;
    into[gaugeKey(SHARDED_GAUGES.misses, 'redis')] = misses;
    into[gaugeKey(SHARED_GAUGES.hitRatio, 'redis')] = hitRatioOf(hits, misses);
    this.lastHits = this.hits;
    this.lastMisses = this.misses;
    for (let s = 0; s < this.keysByShard.length; s++) {
      into[gaugeKey(SHARDED_GAUGES.shardKeys, `shard${s}`)] = this.keysByShard[s]! - this.lastKeysByShard[s]!;
      this.lastKeysByShard[s] = this.keysByShard[s]!;
    }
  }

  readonly gaugeSpecs: readonly GaugeSpec[] = [SHARED_GAUGES.openConnections, SHARED_GAUGES.hitRatio, ...Object.values(SHARDED_GAUGES)];

  report(): RedisTransportReport {
    const first = this.connections.filter((_, i) => i % this.perShard === 0);
    const commands: RedisTransportReport['commands'] = {};
    // Each operation names its own command (COMMAND_OF is one to one): its replies are INFO commandstats' calls.
    REDIS_OPERATIONS.forEach((op, i) => {
      const n = this.replies[COMMAND_OF[i]!]!;
      if (n > 0) commands[op] = n;
    });
    return {
      protocol: 'redis',
      hits: this.hits,
      misses: this.misses,
      hitRatio: hitRatioOf(this.hits, this.misses),
      ...shardLoad(
        first.map((c) => `${c.host}:${c.port}`),
        Array.from(this.keysByShard),
      ),
      connects: this.connections.reduce((a, c) => a + c.connects, 0),
      protocolErrors: this.connections.reduce((a, c) => a + c.protocolErrors, 0),
      serverErrors: Object.fromEntries(this.serverErrors),
      commands,
    };
  }

  waitedForConnection(): number {
    return 0;
  }
}
