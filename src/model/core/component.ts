import type { GaugeSpec } from '../../recorder/gauges.ts';

/* What results see of a component: its interval gauges and its counters. */

/** Something the model samples at every interval boundary. */
export interface GaugeSource {
  /** The gauges it may write with this topology: what the run's gauge catalog lists. */
  readonly gaugeSpecs: readonly GaugeSpec[];
  /** Writes its gauges as of now, keyed by `gaugeKey`; rates and ratios cover the time since `sinceUs`, the previous sample. */
  gauges(into: Record<string, number>, sinceUs: number): void;
}

/** One component of a topology as results see it: its interval gauges and its counters for the run's details. */
export interface ModelComponent<D = unknown> extends GaugeSource {
  readonly name: string;
  details(): D;
}
