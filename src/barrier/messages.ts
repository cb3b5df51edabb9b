import type { BarrierSpec } from './barrier.ts';

/* What a segment says when the barrier did not start it: which segments never arrived, or how late it was. */

/** "segment 2 of 4", "segments 1 and 3 of 4", "segments 1, 2 and 3 of 4". */
export function listSegments(indexes: readonly number[], count: number): string {
  if (indexes.length === 1) return `segment ${indexes[0]} of ${count}`;
  const head = indexes.slice(0, -1).join(', ');
  return `segments ${head} and ${indexes.at(-1)} of ${count}`;
}

export function describeAbandoned(spec: BarrierSpec, outcome: { abandonedAt: string; by: number; missing: number[]; waitedMs: number }): string {
  const { index, count } = spec.segment;
  const never = `${listSegments(outcome.missing, count)} never arrived at the barrier in ${spec.dir}`;
  const givenUp = `segment ${outcome.by} gave up at ${outcome.abandonedAt}, after waiting ${seconds(outcome.waitedMs)}`;
  const self = outcome.missing.includes(index) ? `; this segment (${index}) came after that` : '';
  return `${never} (${givenUp}${self}): the run did not start, nothing was sent`;
}

export function describeLate(spec: BarrierSpec, startMs: number): string {
  const { index, count } = spec.segment;
  return (
    `the run at the barrier in ${spec.dir} started at ${new Date(startMs).toISOString()}, ${seconds(Date.now() - startMs)} ago, without segment ${index} of ${count}: ` +
    'a segment that arrives after the start cannot rejoin its run, nothing was sent (a new run needs a new barrier folder)'
  );
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}
