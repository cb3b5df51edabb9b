import { formatUs } from '../analysis/format.ts';
import { markdownTable } from '../report/table.ts';
import { pct, signed } from './compare.ts';
import type { Calibration, FittedParameters, KneeEstimate, LoadRow, P99At } from './types.ts';

/** What was fitted and from where, one line each (the calibrated topology's header and the report). */
export function fittedLines(f: FittedParameters): string[] {
  const s = f.settings;
  return [
    `service CPU: ${f.demandUs.toFixed(1)} µs per request (${f.demandFrom} ÷ requests: at most ${Math.round(f.coreCapacityRps)} rps on its one core) = ${f.itemTimeUs.toFixed(2)} µs per URI × ${f.lookupsPerRequest.toFixed(1)} URIs per request; cpus ${f.cpus}, workers inf`,
    ...pauseLines(f),
    `Little's law at ${f.inFlightAtKnee.rps} rps: ${f.inFlightAtKnee.requests.toFixed(1)} requests in flight (callers' connections: ${f.callerConnections} × pipelining ${f.callerPipelining})`,
    `memcached get: ${f.memcached.getUs} µs round trip (${f.memcached.from}), a delay with no worker limit; hit ratio ${(f.hitRatio * 100).toFixed(1)}%${f.warmKeys !== undefined ? ` → a warm cache of the ${f.warmKeys} most popular keys` : ''}`,
    `the service's settings: fan-out limit ${s.limit}, pool ${s.poolMaxOpen} open / ${s.poolMaxIdle} idle, checkout timeout ${formatUs(s.checkoutTimeoutUs)}, operation timeout ${formatUs(s.operationTimeoutUs)}, store delay ${formatUs(s.storeDelayUs)}`,
    `residual delay (network, wake-ups, timer slack, pauses): median ${formatUs(f.networkUs)} = service p50 ${formatUs(f.lowLoad.p50Us)} − model p50 ${formatUs(f.modelLowLoadP50Us)} at low load (steps ${f.lowLoad.stepsRps.join(', ')} rps); its spread is the service's there (p99 ${formatUs(f.lowLoad.p99Us)}), as ${f.networkDelayUs.length} equally likely delays`,
  ];
}

function pauseLines(f: FittedParameters): string[] {
  if (!f.pauses) return [];
  const line = (name: string, p: { perItem: number; meanUs: number }) =>
    p.perItem > 0 ? `${name} 1 in ${Math.round(1 / p.perItem)} URIs, mean ${formatUs(Math.round(p.meanUs))}` : `${name} none`;
  return [`GC pauses (each holds the core as a longer item): ${line('minor', f.pauses.minor)}; ${line('major', f.pauses.major)}`];
}

function source(p: P99At): string {
  if (p.from === 'step') return 'step';
  if (p.from === 'nearest step') return `nearest step (${p.stepsRps[0]} rps)`;
  return `between ${p.stepsRps.join(' and ')} rps`;
}

function kneeCell(k: KneeEstimate | undefined): string {
  return k ? `${k.rps} rps` : 'none';
}

/** The side-by-side rows: knee, then p99 at each multiple of capacity. */
export function comparisonTable(c: Calibration): { header: string[]; rows: string[][] } {
  const header = ['', 'service', 'model', 'difference', 'target'];
  const knee = ['knee', kneeCell(c.knee.real), kneeCell(c.knee.model), c.knee.difference !== undefined ? signed(c.knee.difference) : '—', `±${pct(c.targets.knee)}`];
  const row = (r: LoadRow) => [
    `p99 at ${r.multiple.toFixed(1)}× (${r.rps} rps)`,
    formatUs(r.real.p99Us),
    formatUs(r.model.p99Us),
    signed(r.difference),
    r.multiple === 0.8 ? `±${pct(c.targets.p99At08)}` : '—',
  ];
  const capacity = ['capacity', `${c.capacity.realRps} rps`, `${c.capacity.modelRps} rps`, signed(c.capacity.modelRps / c.capacity.realRps - 1), '—'];
  return { header, rows: [capacity, knee, ...c.rows.map(row)] };
}

/** calibration.md. */
export function renderCalibrationMarkdown(c: Calibration): string {
  const { header, rows } = comparisonTable(c);
  const curve = c.curves.real.map((p, i) => [`${p.rps}`, formatUs(p.p99Us), formatUs(c.curves.model[i]?.p99Us ?? 0)]);
  return [
    `# Calibration: ${c.verdict.met ? 'targets met' : 'targets NOT met'}`,
    '',
    `The model of \`${c.profile}\` calibrated from the real qualification \`${c.realDir}\` with the topology \`${c.topologyFile}\`,`,
    `side by side at the service's capacity of ${c.capacity.realRps} rps (the calibrated model's own qualification: ${c.capacity.modelRps} rps).`,
    '',
    markdownTable(header, rows, ['l', 'r', 'r', 'r', 'r']),
    '',
    'The knee is where p99 passed twice the lowest step’s, read between the two steps around the turn;',
    `the qualifications’ own knees (step rates): service ${c.knee.realQualification ? `${c.knee.realQualification.rps} rps` : 'none'}, model ${c.knee.modelQualification ? `${c.knee.modelQualification.rps} rps` : 'none'}.`,
    `p99 at a multiple of capacity: ${c.rows.map((r) => `${r.multiple.toFixed(1)}× service ${source(r.real)}, model ${source(r.model)}`).join('; ')}.`,
    '',
    '## Where they disagree',
    '',
    ...(c.verdict.disagreements.length > 0 ? c.verdict.disagreements.map((d) => `- ${d}`) : ['- nowhere beyond the targets']),
    '',
    '## Fitted',
    '',
    ...fittedLines(c.fitted).map((l) => `- ${l}`),
    '',
    `Calibrated topology: \`${c.calibratedTopologyFile}\`. The model’s qualification: \`${c.model.qualificationDir}/\`.`,
    '',
    '## p99 at the service’s steps',
    '',
    markdownTable(['rps', 'service', 'model'], curve, ['r', 'r', 'r']),
    '',
  ].join('\n');
}

/** The terminal's table: the comparison in aligned columns. */
export function renderCalibrationTable(c: Calibration): string {
  const { header, rows } = comparisonTable(c);
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}
