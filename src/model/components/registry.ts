import type { ComponentKind } from '../core/wiring.ts';
import { cacheKind } from './cache/kind.ts';
import { clientGroupKind } from './client-group/kind.ts';
import { databaseKind } from './database/kind.ts';
import { hostKind } from './host/kind.ts';
import { monitorKind } from './monitor/kind.ts';
import { serviceKind } from './service/kind.ts';

/*
 * Every component kind, and the three orders results depend on. Each is what it was before kinds
 * had a registry, so results (trace hashes included) stay byte-comparable with earlier runs.
 */

/** Every kind, one entry each: the order of node numbers and of the run's details. */
export const COMPONENT_KINDS: readonly ComponentKind[] = [serviceKind, cacheKind, databaseKind, clientGroupKind, hostKind, monitorKind];

/**
 * Build order's tie-break: each kind is built after the kinds it declares (`after`); among those
 * ready, the earlier here goes first. Handler ids, and so a run's trace hash, follow build order.
 */
export const BUILD_TIE_BREAK: readonly ComponentKind[] = [hostKind, clientGroupKind, cacheKind, databaseKind, serviceKind, monitorKind];

/** The order of an interval's gauges, by kind. */
export const GAUGE_ORDER: readonly ComponentKind[] = [clientGroupKind, serviceKind, cacheKind, databaseKind, hostKind, monitorKind];
