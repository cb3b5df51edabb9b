import { IntDeque } from '../../engine/int-deque.ts';
import type { HostState } from '../host/host.ts';

/**
 * Connections of one client instance to one destination node. Connections have no identity — one
 * outstanding request each, so counts are the whole state: `open` (dialling, busy or idle) and
 * `idle`. Callers waiting for a connection queue FIFO as (call id, generation) pairs.
 */
export class Pool {
  open = 0;
  idle = 0;
  openHighWater = 0;
  /** Pipelining only (depth > 1): request slots free on open connections. */
  spare = 0;
  /** Busy connections the destination reset (its process died): closed, not reused, when their request ends. */
  stale = 0;
  /** Destination node (set at the first dial; a pool serves one node). */
  node = 0;
  /** (call id, gen) pairs, oldest first; entries whose call has moved on are skipped when popped. */
  readonly waiters = new IntDeque(8);

  constructor(
    /** Mutable: a later timeline event can change it at run time (the Black Friday fix). */
    public maxOpen: number,
    public maxIdle: number,
    /** Requests outstanding per connection (1: no pipelining). */
    readonly depth: number,
    readonly host: HostState,
    /** The host's port table for this (machine, node). */
    readonly table: number,
  ) {}
}
