import type { Service } from '../../../profile/topology/index.ts';
import { defineGauge, gaugeKey, intervalMaxOf } from '../../../recorder/gauges.ts';
import { createSampler } from '../../../schedule/sample.ts';
import type { CallPlan } from '../../core/records.ts';
import { callOp } from '../../core/ops.ts';
import type { ComponentKind, Wiring } from '../../core/wiring.ts';
import { cacheKind } from '../cache/kind.ts';
import { clientGroupKind } from '../client-group/kind.ts';
import type { ModelComponent } from '../../core/component.ts';
import { ProcessState, type ProcessStats } from './process.ts';
import { ServiceNode, type ServiceStats } from './service.ts';

const QUEUE_DEPTH = defineGauge('queueDepth', 'count', 'queues', 'requests waiting for a worker at the sample');
const BUSY_WORKERS = defineGauge('busyWorkers', 'count', 'queues', 'workers holding a request at the sample');
const CPU_QUEUE = defineGauge('cpuQueue', 'count', 'queues', 'requests holding a worker and waiting for a core at the sample');
const THREADS = defineGauge('threads', 'count', 'process', 'OS threads of the process (base + blocked log writers) at the sample');
const MEMORY_MB = defineGauge('memoryMb', 'mb', 'process', 'memory the process uses at the sample');
const GC_SHARE = defineGauge('gcShare', 'ratio', 'process', 'share of CPU spent collecting garbage at the sample');
const OOM_KILLS = defineGauge('oomKills', 'count', 'process', 'OOM kills since the start', 'run');
const DOWN = defineGauge('down', 'count', 'process', '1 while the process is dead or restarting, else 0');
const QUEUE_DEPTH_MAX = intervalMaxOf(QUEUE_DEPTH, defineGauge('queueDepthMax', 'count', 'queues', 'most requests waiting for a worker at any moment of the interval'));
const BUSY_WORKERS_MAX = intervalMaxOf(BUSY_WORKERS, defineGauge('busyWorkersMax', 'count', 'queues', 'most workers holding a request at any moment of the interval'));
const THREADS_MAX = intervalMaxOf(THREADS, defineGauge('threadsMax', 'count', 'process', 'most OS threads of the process at any moment of the interval'));
const MEMORY_MB_MAX = intervalMaxOf(MEMORY_MB, defineGauge('memoryMbMax', 'mb', 'process', 'most memory the process used at any moment of the interval'));
const PROCESS_GAUGES = [THREADS, THREADS_MAX, MEMORY_MB, MEMORY_MB_MAX, GC_SHARE, OOM_KILLS, DOWN];

export type ServiceDetails = ServiceStats & { meanQueueWaitUs: number; busyWorkers: number; queueDepth: number; process?: ProcessStats };

/** Services: worker pools that make downstream calls (built last: their calls refer to groups, caches and databases). */
export const serviceKind: ComponentKind<ServiceNode> = {
  section: 'services',
  nodeSlots: () => 1,
  accepts: ['call', 'miss'],
  // Its calls resolve to client groups and, for keyed destinations, to caches.
  after: [clientGroupKind, cacheKind],
  build(wiring) {
    const entryServices = new Set(wiring.plan.kinds.map((kind) => wiring.entryOf(kind)));
    for (const [name, spec] of Object.entries(wiring.topology.services)) {
      const r = wiring.rng(`service:${name}`);
      const calls = spec.calls.map((call, i) => callPlan(wiring, name, call, i));
      const service = new ServiceNode(wiring.ctx, wiring.flow, {
        name,
        workers: spec.workers,
        queueLimit: spec.queue.limit,
        lifo: spec.queue.discipline === 'lifo',
        serviceTime: createSampler(spec.serviceTime, r),
        itemTime: spec.itemTime ? createSampler(spec.itemTime, r) : null,
        calls,
        latencyPerInFlightUs: spec.latencyPerInFlight,
        isEntry: entryServices.has(name),
        cpus: spec.cpus,
        dropAfterUs: spec.queue.dropAfter,
        process:
          spec.memory || spec.gc || spec.errorLog || spec.threads > 0
            ? new ProcessState(spec.threads, spec.memory ?? null, spec.gc?.cost ?? 0, spec.errorLog?.writeTime ?? 0, spec.errorLog?.every ?? 1)
            : null,
        restartDelayUs: spec.memory?.restartDelay ?? 0,
        ownGroups: [...new Set(spec.calls.flatMap((c) => [c.via, ...(c.onMiss ? [c.onMiss.via] : [])]))].map((g) => wiring.get(clientGroupKind, g)),
      });
      wiring.add(serviceKind, service, serviceComponent(service));
    }
  },
};

/** One call entry, resolved to runtime objects; warns about request kinds the profile never sends. */
function callPlan(wiring: Wiring, service: string, call: Service['calls'][number], index: number): CallPlan {
  const kindsOfPlan = wiring.plan.kinds;
  const to = wiring.callee(call.to, 'call');
  let kinds: Uint8Array | null = null;
  if (call.kinds) {
    kinds = new Uint8Array(kindsOfPlan.length);
    for (const kind of call.kinds) {
      const k = kindsOfPlan.indexOf(kind);
      if (k >= 0) kinds[k] = 1;
      else wiring.warnings.push(`services.${service}.calls[${index}].kinds: no request of kind "${kind}" in the profile`);
    }
  }
  return {
    group: wiring.get(clientGroupKind, call.via),
    cache: to.keyed,
    node: to.keyed !== null ? -1 : to.node,
    kinds,
    perItem: call.perItem,
    onMiss: call.onMiss ? { group: wiring.get(clientGroupKind, call.onMiss.via), node: wiring.callee(call.onMiss.to, 'miss').node, readThrough: call.onMiss.readThrough } : null,
    fill: call.onMiss !== undefined && call.fill,
    write: call.write,
    optional: call.optional,
    ops: to.keyed !== null ? Uint8Array.from(kindsOfPlan, (kind) => callOp(kind, call.op, call.write)) : null,
  };
}

function serviceComponent(service: ServiceNode): ModelComponent<ServiceDetails> {
  const name = service.name;
  const process = service.config.process;
  const hasCpuQueue = Number.isFinite(service.config.cpus);
  const key = {
    queueDepth: gaugeKey(QUEUE_DEPTH, name),
    busyWorkers: gaugeKey(BUSY_WORKERS, name),
    queueDepthMax: gaugeKey(QUEUE_DEPTH_MAX, name),
    busyWorkersMax: gaugeKey(BUSY_WORKERS_MAX, name),
    threadsMax: gaugeKey(THREADS_MAX, name),
    memoryMbMax: gaugeKey(MEMORY_MB_MAX, name),
    threads: gaugeKey(THREADS, name),
    memoryMb: gaugeKey(MEMORY_MB, name),
    gcShare: gaugeKey(GC_SHARE, name),
    oomKills: gaugeKey(OOM_KILLS, name),
    down: gaugeKey(DOWN, name),
    cpuQueue: gaugeKey(CPU_QUEUE, name),
  };
  return {
    name,
    gaugeSpecs: [QUEUE_DEPTH, QUEUE_DEPTH_MAX, BUSY_WORKERS, BUSY_WORKERS_MAX, ...(process !== null ? PROCESS_GAUGES : []), ...(hasCpuQueue ? [CPU_QUEUE] : [])],
    gauges(into) {
      into[key.queueDepth] = service.queue.size;
      into[key.busyWorkers] = service.busy;
      // Point samples miss what happens between them: the interval's peaks beside them.
      into[key.queueDepthMax] = Math.max(service.queuePeak, service.queue.size);
      into[key.busyWorkersMax] = Math.max(service.busyPeak, service.busy);
      service.queuePeak = service.queue.size;
      service.busyPeak = service.busy;
      if (process !== null) {
        const peaks = process.takePeaks();
        into[key.threads] = process.threads;
        into[key.threadsMax] = peaks.threads;
        into[key.memoryMb] = Math.round(process.usedMb());
        into[key.memoryMbMax] = Math.round(peaks.memoryMb);
        into[key.gcShare] = process.gcShare();
        into[key.oomKills] = process.stats.oomKills;
        into[key.down] = service.down ? 1 : 0;
      }
      if (hasCpuQueue) into[key.cpuQueue] = service.cpuQueue.size;
    },
    details: () => {
      const stats = service.stats;
      return {
        ...stats,
        meanQueueWaitUs: stats.started > 0 ? stats.queueWaitUs / stats.started : 0,
        busyWorkers: service.busy,
        queueDepth: service.queue.size,
        ...(process ? { process: { ...process.stats } } : {}),
      };
    },
  };
}
