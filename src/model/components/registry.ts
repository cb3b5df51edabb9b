import { cacheKind } from './cache/kind.ts';
import { clientGroupKind } from './client-group/kind.ts';
import type { ComponentKind } from './component.ts';
import { databaseKind } from './database/kind.ts';
import { hostKind } from './host/kind.ts';
import { monitorKind } from './monitor/kind.ts';
import { serviceKind } from './service/kind.ts';

export interface RegisteredKind {
  kind: ComponentKind;
  /** Construction step: after the kinds it looks up. Handler ids, and so a run's trace hash, follow it. */
  build: number;
  /** Position of its gauges within an interval's gauges. */
  gauges: number;
}

/**
 * Every component kind, one line each. The list order is the order of node numbers and of the run's
 * details; `build` and `gauges` are the other two orders. All three are what they were before kinds
 * had a registry, so results stay byte-comparable with earlier runs.
 */
export const COMPONENT_KINDS: readonly RegisteredKind[] = [
  { kind: serviceKind, build: 5, gauges: 2 },
  { kind: cacheKind, build: 3, gauges: 3 },
  { kind: databaseKind, build: 4, gauges: 4 },
  { kind: clientGroupKind, build: 2, gauges: 1 },
  { kind: hostKind, build: 1, gauges: 5 },
  { kind: monitorKind, build: 6, gauges: 6 },
];
