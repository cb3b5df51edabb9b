import type { GaugeSpec } from '../../recorder/gauges.ts';
import type { Topology } from '../../profile/topology/index.ts';
import type { Wiring } from '../core/wiring.ts';

/** The topology sections a kind can be built from: the ones keyed by component name. */
export type Section = { [K in keyof Topology]-?: Topology[K] extends Record<string, object> ? (Topology[K] extends readonly unknown[] ? never : K) : never }[keyof Topology];

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

/**
 * One kind of component (service, cache, …): builds its runtime objects `R` from its topology
 * section and says how results see them. Adding a kind is a folder with one of these plus a line in
 * the registry; nothing else reaches into a kind.
 */
export interface ComponentKind<_R extends { readonly name: string } = { readonly name: string }> {
  /** Its topology section, and its key in the run's details. */
  readonly section: Section;
  /** Destination nodes (call targets) each component of the section takes; kinds nobody calls leave it out. */
  nodeSlots?(name: string, wiring: Wiring): number;
  /** Builds every component of the section into `wiring` (`wiring.add`), looking up kinds built earlier. */
  build(wiring: Wiring): void;
}
