import { IntDeque } from '../../engine/int-deque.ts';

/**
 * The kernel's accept queue per shard: connections whose handshake the kernel completed while the
 * shard was at its fd limit. Their clients think they are connected and have sent their request;
 * it waits here (as its task) until an fd frees and the shard accepts the connection — whether or
 * not the client still waits for it (Twitter 2014-01: the dispatcher stopped accepting at the fd
 * limit; clients sent, timed out and retried on new connections).
 */
export class AcceptQueue {
  private readonly waiting: IntDeque[];
  /** Connections accepted from the queue, since the start. */
  accepted = 0;

  constructor(slots: number) {
    this.waiting = Array.from({ length: slots }, () => new IntDeque(16));
  }

  park(shard: number, taskId: number): void {
    this.waiting[shard]!.pushBack(taskId);
  }

  size(shard: number): number {
    return this.waiting[shard]!.size;
  }

  /** The oldest parked task of the shard, or -1. */
  next(shard: number): number {
    const queue = this.waiting[shard]!;
    if (queue.size === 0) return -1;
    this.accepted++;
    return queue.popFront();
  }

  /** Every parked task of the shard (its process died: the queue goes with the listening socket). */
  drain(shard: number, each: (taskId: number) => void): void {
    const queue = this.waiting[shard]!;
    while (queue.size > 0) each(queue.popFront());
  }

  /** Connections waiting in the longest accept queue now. */
  longest(): number {
    let worst = 0;
    for (const queue of this.waiting) worst = Math.max(worst, queue.size);
    return worst;
  }
}
