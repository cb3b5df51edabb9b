import { BinaryConnection, OP_GET, OP_SET, STATUS_NOT_FOUND, STATUS_OK, type MemcachedOwner } from '../driver/memcached/binary-connection.ts';

export interface PoolSettings {
  /** Most connections open at once (checked out + idle); a checkout beyond it waits. */
  maxOpen: number;
  /** Idle connections kept after use; the rest are closed (→ TIME_WAIT on this host), as Go's pool does. */
  maxIdle: number;
  /** How long a lookup waits for a connection before failing with checkout_timeout, ms. */
  checkoutTimeoutMs: number;
  /** Per operation, ms. */
  timeoutMs: number;
}

export type LookupResult = 'hit' | 'miss' | 'stored' | 'checkout_timeout' | 'error';
type Callback = (result: LookupResult) => void;

/**
 * A bounded pool of one-operation-at-a-time memcached connections: the shape of the Go client in
 * the Bluesky incident (gomemcache: a connection per in-flight operation, an idle list, extra
 * connections closed after use). The counters are what GET /stats reports.
 */
export class MemcachedPool {
  private readonly idle: PooledConnection[] = [];
  private readonly waiters: { callback: (c: PooledConnection | undefined) => void; timer: NodeJS.Timeout }[] = [];
  open = 0;
  inUse = 0;
  opened = 0;
  closed = 0;
  highWater = 0;
  checkoutTimeouts = 0;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly settings: PoolSettings,
  ) {}

  get waiting(): number {
    return this.waiters.length;
  }

  get(key: string, done: Callback): void {
    this.checkout((c) => (c ? c.run(OP_GET, key, undefined, done) : done('checkout_timeout')));
  }

  set(key: string, value: Buffer, done: Callback): void {
    this.checkout((c) => (c ? c.run(0x01, key, value, done) : done('checkout_timeout')));
  }

  close(): void {
    for (const w of this.waiters.splice(0)) clearTimeout(w.timer);
    for (const c of this.idle.splice(0)) c.connection.close();
  }

  private checkout(callback: (c: PooledConnection | undefined) => void): void {
    const idle = this.idle.pop();
    if (idle) return this.lend(idle, callback);
    if (this.open < this.settings.maxOpen) {
      this.open++;
      this.opened++;
      if (this.open > this.highWater) this.highWater = this.open;
      return this.lend(new PooledConnection(this.host, this.port, this), callback);
    }
    const waiter = {
      callback,
      timer: setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        this.checkoutTimeouts++;
        callback(undefined);
      }, this.settings.checkoutTimeoutMs),
    };
    this.waiters.push(waiter);
  }

  private lend(c: PooledConnection, callback: (c: PooledConnection) => void): void {
    this.inUse++;
    callback(c);
  }

  /** Back from an operation: to the next waiter, to the idle list, or closed. */
  release(c: PooledConnection, healthy: boolean): void {
    this.inUse--;
    if (!healthy) {
      c.connection.close();
      this.open--;
      this.closed++;
      if (this.waiters.length > 0) this.checkout(this.takeWaiter());
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) {
      clearTimeout(waiter.timer);
      return this.lend(c, waiter.callback);
    }
    if (this.idle.length < this.settings.maxIdle) this.idle.push(c);
    else {
      c.connection.close();
      this.open--;
      this.closed++;
    }
  }

  private takeWaiter(): (c: PooledConnection | undefined) => void {
    const waiter = this.waiters.shift()!;
    clearTimeout(waiter.timer);
    return waiter.callback;
  }

  timeoutMs(): number {
    return this.settings.timeoutMs;
  }
}

class PooledConnection implements MemcachedOwner {
  readonly connection: BinaryConnection;
  private done: Callback | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    host: string,
    port: number,
    private readonly pool: MemcachedPool,
  ) {
    this.connection = new BinaryConnection(host, port, this);
  }

  run(opcode: number, key: string, value: Buffer | undefined, done: Callback): void {
    this.done = done;
    this.timer = setTimeout(() => this.connection.abort('timeout'), this.pool.timeoutMs());
    if (opcode === OP_GET) this.connection.get(0, key);
    else this.connection.store(OP_SET, 0, key, value!, value!.length, 0);
  }

  answered(_token: number, opcode: number, status: number): void {
    const result: LookupResult = status === STATUS_OK ? (opcode === OP_GET ? 'hit' : 'stored') : status === STATUS_NOT_FOUND ? 'miss' : 'error';
    this.finish(result, true);
  }

  quietHit(): void {}

  /** The pool times a lookup from its call, sent or not. */
  wired(): void {}

  failed(): void {
    this.finish('error', false);
  }

  private finish(result: LookupResult, healthy: boolean): void {
    clearTimeout(this.timer);
    const done = this.done;
    this.done = undefined;
    if (!done) return;
    this.pool.release(this, healthy);
    done(result);
  }
}
