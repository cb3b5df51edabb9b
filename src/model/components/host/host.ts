import { DeadlineQueue, type DeadlineOwner } from '../../engine/deadline-queue.ts';
import type { Simulation } from '../../engine/simulation.ts';
import type { ConnectionTotals } from '../../core/context.ts';

/**
 * One host's kernel connection state: for every (machine, destination node) 4-tuple space, the
 * ports held by open connections and by connections in TIME_WAIT. A dial needs open + TIME_WAIT <
 * portRange. TIME_WAIT belongs to the host, not the process: it survives a client restart.
 */
export class HostState implements DeadlineOwner {
  private open: number[] = [];
  private timeWait: number[] = [];
  private readonly tables = new Map<string, number>();
  private readonly expiries: DeadlineQueue;
  /** Connections in TIME_WAIT on this host, every tuple space together. */
  timeWaitTotal = 0;
  /** Most ports in TIME_WAIT in any one tuple space at once. */
  timeWaitHighWater = 0;
  /** Most ports (open + TIME_WAIT) used in any one tuple space at once. */
  portsHighWater = 0;

  constructor(
    readonly name: string,
    readonly portRange: number,
    readonly timeWaitUs: number,
    sim: Simulation,
    private readonly totals: ConnectionTotals,
  ) {
    this.expiries = new DeadlineQueue(sim, timeWaitUs, this);
  }

  /** The port table of (machine, node); built at setup. */
  table(machine: number, node: number): number {
    const key = `${machine}:${node}`;
    let index = this.tables.get(key);
    if (index === undefined) {
      index = this.open.length;
      this.open.push(0);
      this.timeWait.push(0);
      this.tables.set(key, index);
    }
    return index;
  }

  canDial(table: number): boolean {
    return this.open[table]! + this.timeWait[table]! < this.portRange;
  }

  opened(table: number): void {
    const used = ++this.open[table]! + this.timeWait[table]!;
    if (used > this.portsHighWater) this.portsHighWater = used;
  }

  /** An active close by the client: the port stays in TIME_WAIT for the host's hold time. */
  closed(table: number): void {
    this.open[table]!--;
    const held = ++this.timeWait[table]!;
    if (held > this.timeWaitHighWater) this.timeWaitHighWater = held;
    this.timeWaitTotal++;
    this.totals.timeWait++;
    this.expiries.push(table, 0);
  }

  /** A connection that ends without TIME_WAIT here (reset by the server, or never established): its port is free at once. */
  reset(table: number): void {
    this.open[table]!--;
  }

  isLive(): boolean {
    return true;
  }

  expire(table: number): void {
    this.timeWait[table]!--;
    this.timeWaitTotal--;
    this.totals.timeWait--;
  }
}
