import { parse } from 'yaml';
import { InputFileError, readInputText } from '../files/input-file.ts';
import { TOPOLOGY_FILE } from '../profile/file-bounds.ts';
import { type Topology, TopologySchema } from '../profile/topology/index.ts';
import { CalibrationInputError } from './errors.ts';

/** The parts of a topology calibration sets: found by following the entry service's per-URI cache call. */
export interface TemplateShape {
  entry: string;
  caller?: string;
  cache: string;
  /** The client group of the cache call. */
  cacheGroup: string;
  /** The database read on a miss, when the call has one. */
  store?: string;
  /** The cache's get time in the template, µs (mean of its distribution's median or value). */
  templateGetUs: number;
}

/** A topology file read for calibration: as written (edited and written back) and as validated. */
export interface Template {
  file: string;
  raw: Record<string, unknown>;
  topology: Topology;
  shape: TemplateShape;
}

const TEMPLATE_HINT = 'give a topology whose entry service calls a cache per item (perItem: true), e.g. profiles/topologies/reference-service.yaml';

/** Reads and checks the topology to calibrate. @throws CalibrationInputError */
export function readTemplate(file: string): Template {
  let raw: unknown;
  try {
    raw = parse(readInputText(file, TOPOLOGY_FILE));
  } catch (error) {
    throw new CalibrationInputError(`cannot read topology ${file}: ${error instanceof InputFileError ? error.reason : (error as Error).message}`, TEMPLATE_HINT);
  }
  const parsed = TopologySchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ');
    throw new CalibrationInputError(`topology ${file} is not valid: ${issues}`, 'stampede validate checks a profile and its topology');
  }
  return { file, raw: raw as Record<string, unknown>, topology: parsed.data, shape: templateShape(file, parsed.data) };
}

function templateShape(file: string, topology: Topology): TemplateShape {
  if (typeof topology.entry !== 'string') throw new CalibrationInputError(`topology ${file}: calibration needs one entry service, not a map per kind`, TEMPLATE_HINT);
  const service = topology.services[topology.entry]!;
  const call = service.calls.find((c) => c.perItem && topology.caches[c.to] !== undefined);
  if (!call) throw new CalibrationInputError(`topology ${file}: service ${topology.entry} makes no per-item cache call`, TEMPLATE_HINT);
  const store = call.onMiss?.to;
  return {
    entry: topology.entry,
    ...(typeof topology.caller === 'string' && { caller: topology.caller }),
    cache: call.to,
    cacheGroup: call.via,
    ...(store !== undefined && topology.databases[store] !== undefined && { store }),
    templateGetUs: typicalUs(topology.caches[call.to]!.serviceTime),
  };
}

type TimeDistribution = Topology['caches'][string]['serviceTime'];

/** A distribution's typical value, µs (a mixture's: its components' weighted): the get time kept when no memcached run is given. */
function typicalUs(d: TimeDistribution): number {
  switch (d.type) {
    case 'fixed':
      return d.value;
    case 'uniform':
      return (d.min + d.max) / 2;
    case 'exponential':
      return d.mean;
    case 'lognormal':
      return d.median;
    case 'empirical':
      return d.values.reduce((s, v) => s + v.value * v.weight, 0) / d.values.reduce((s, v) => s + v.weight, 0);
    case 'mixture':
      return d.of.reduce((s, c) => s + typicalUs(c as TimeDistribution) * c.weight, 0) / d.of.reduce((s, c) => s + c.weight, 0);
  }
}
