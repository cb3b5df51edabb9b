import type { EventHandler, Simulation } from '../model/engine/simulation.ts';
import type { ClientGroup } from '../profile/topology/index.ts';
import { Rng, deriveSeed } from '../schedule/rng.ts';
import { createSampler, type Sampler } from '../schedule/sample.ts';

const EV_USER_READY = 1;

/** What the closed loop asks of the run: send a user's next request now, or say there is none. */
export interface UserSender {
  /** Sends the schedule's next request now for `user`; false when the run has no more to send. */
  sendNext(user: number): boolean;
  /** Every user has stopped. */
  allStopped(): void;
}

/**
 * Closed-loop users on the model (a caller group's `closedLoop`): each has one request out at a
 * time, and sends the next one a think time after the previous one ended. The schedule gives the
 * requests (kinds, keys, clients) in order; the users give the send times. Users start one think
 * time after the run starts, so they do not all send at t = 0.
 */
export class ClosedLoopUsers implements EventHandler {
  private readonly handlerId: number;
  private readonly thinkTime: Sampler;
  /** The user waiting for each request in flight, by the request's schedule position. */
  private readonly userOfSeq = new Map<number, number>();
  private stopped = 0;

  constructor(
    private readonly sim: Simulation,
    private readonly spec: NonNullable<ClientGroup['closedLoop']>,
    seed: number,
    private readonly sender: UserSender,
  ) {
    this.handlerId = sim.register(this);
    this.thinkTime = createSampler(spec.thinkTime, new Rng(deriveSeed(seed, 'model:closedLoop')));
  }

  start(): void {
    for (let user = 0; user < this.spec.users; user++) this.sim.after(this.thinkTime(), this.handlerId, EV_USER_READY, user);
  }

  /** The request at schedule position `seq` was sent for `user`. */
  sent(seq: number, user: number): void {
    this.userOfSeq.set(seq, user);
  }

  /** The request at `seq` ended: its user thinks, then sends again. */
  ended(seq: number): void {
    const user = this.userOfSeq.get(seq);
    if (user === undefined) return;
    this.userOfSeq.delete(seq);
    this.sim.after(this.thinkTime(), this.handlerId, EV_USER_READY, user);
  }

  handle(_code: number, user: number): void {
    if (this.sender.sendNext(user)) return;
    if (++this.stopped === this.spec.users) this.sender.allStopped();
  }
}
