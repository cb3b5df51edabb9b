/** How a destination answers a dial. */
export const DIAL_ACCEPTED = 0;
/** The fd table is full: the kernel completes the handshake and parks the connection in the accept queue. */
export const DIAL_BACKLOG = 1;
/** Nothing listens (the process is down) or the backlog is full with `overflow: refuse`: RST at once. */
export const DIAL_REFUSED = 2;
/** The backlog is full with `overflow: drop` (Linux's default): the SYN is dropped, the client waits for its timeout. */
export const DIAL_DROPPED = 3;

/** A node as the server side of connections sees it: it hears when one of its fds is freed. */
export interface FdHolder {
  /** An fd of `node` was freed (a close processed): a server with an accept queue takes the next connection. */
  connectionFreed?(node: number): void;
}

/**
 * The server side of connections, per destination node: the file descriptors a server holds
 * against its limit, and the kernel's accept queue (backlog) beyond it. A server's fd is freed only
 * when the server has processed the close — at once for an idle connection, after the request
 * still pending on it otherwise (the client timed out and closed, the server has yet to read it)
 * — so under a storm of timeouts the dead work in a server bounds its fds, not the clients' view.
 * Client-side state (ports, TIME_WAIT) is the host's.
 */
export class ServerConnections {
  /** Connections waiting in the accept queue per node (dialled into it, not yet accepted). */
  readonly backlogUsed: Int32Array;
  /** Accept-queue length per node beyond the fd limit; 0 = refuse at the limit. */
  readonly backlogLimit: Float64Array;
  /** 1: a dial beyond a full backlog is dropped (client timeout) rather than refused. */
  readonly dropOverflow: Uint8Array;
  /** 1 while the node's process is down: dials are refused. */
  readonly down: Uint8Array;
  /** Most fds a node held at once. */
  readonly highWater: Int32Array;
  /** Dials that found the fd table full: parked in the accept queue, or beyond it (refused or dropped). */
  readonly backlogged: Float64Array;
  readonly overflowed: Float64Array;
  private readonly resetListeners: ((node: number) => void)[] = [];

  constructor(
    /** Open fds per node (`ModelContext.connections`). */
    readonly open: Int32Array,
    /** Fd limit per node (`ModelContext.connectionLimit`). */
    readonly limit: Float64Array,
    private readonly nodes: readonly FdHolder[],
  ) {
    const n = open.length;
    this.backlogUsed = new Int32Array(n);
    this.backlogLimit = new Float64Array(n);
    this.dropOverflow = new Uint8Array(n);
    this.down = new Uint8Array(n);
    this.highWater = new Int32Array(n);
    this.backlogged = new Float64Array(n);
    this.overflowed = new Float64Array(n);
  }

  dial(node: number): number {
    if (this.down[node] === 1) return DIAL_REFUSED;
    if (this.open[node]! < this.limit[node]!) {
      this.take(node);
      return DIAL_ACCEPTED;
    }
    if (this.backlogUsed[node]! < this.backlogLimit[node]!) {
      this.backlogUsed[node]!++;
      this.backlogged[node]!++;
      return DIAL_BACKLOG;
    }
    this.overflowed[node]!++;
    return this.dropOverflow[node] === 1 ? DIAL_DROPPED : DIAL_REFUSED;
  }

  /** True when the node has a free fd for a connection in its accept queue. */
  canAccept(node: number): boolean {
    return this.open[node]! < this.limit[node]!;
  }

  /** The server accepts a connection from its backlog: it takes an fd. */
  acceptFromBacklog(node: number): void {
    this.backlogUsed[node]!--;
    this.take(node);
  }

  private take(node: number): void {
    const open = ++this.open[node]!;
    if (open > this.highWater[node]!) this.highWater[node] = open;
  }

  /** The server has processed a connection's close: its fd is free, and a backlogged connection may take it. */
  released(node: number): void {
    // A pipelined client connection that outlived a reset of the node is no fd of the server's.
    if (this.open[node] === 0) return;
    this.open[node]!--;
    this.nodes[node]!.connectionFreed?.(node);
  }

  /** Client groups holding connections to nodes hear when a node's process dies. */
  onReset(listener: (node: number) => void): void {
    this.resetListeners.push(listener);
  }

  /** The node's process died (or is restarted): the kernel closes its fds and its accept queue; clients' connections are reset. */
  reset(node: number, down: boolean): void {
    this.open[node] = 0;
    this.backlogUsed[node] = 0;
    this.down[node] = down ? 1 : 0;
    for (const listener of this.resetListeners) listener(node);
  }

  /** The node's process listens again. */
  up(node: number): void {
    this.down[node] = 0;
  }
}
