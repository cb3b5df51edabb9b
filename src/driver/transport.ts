import type { ProtocolReport } from '../profile/protocols/registry.ts';
import type { Recorder } from '../recorder/types.ts';
import type { Schedule, ScheduledRequest } from '../schedule/types.ts';
import type { GaugeSource } from './run-health.ts';
import type { RingControl } from './timeline/runner.ts';

/**
 * What a real target's transport must do for an open-loop run. A transport owns its sockets and
 * wire format; the run owns time, the in-flight slots and the recorder.
 */
export interface Transport extends GaugeSource {
  /** Hands one due request to the target. `request` (and its keys view) is valid only during the call. */
  submit(slot: number, request: ScheduledRequest): void;
  /** Opens connections before the clock starts, so dialing is not charged to the first requests. Never rejects. */
  prepare(): Promise<void>;
  /** A pacer wake-up begins: requests submitted until the next call may share a connection's write. */
  beginBatch(): void;
  /** Housekeeping every few ms: timeouts, reconnects. */
  tick(nowUs: number): void;
  /** Ends the run: fails whatever is still in flight with `reason` and closes every socket. */
  close(reason: number): void;
  report(): ProtocolReport;
  /** Requests that waited for a free connection slot before their write (backpressure on the generator). */
  waitedForConnection(): number;
  /** The client's ring, for a protocol whose timeline moves servers in and out of it (its spec's timeline.ring). */
  readonly ring?: RingControl;
}

/** What a transport sees of the run it serves (OpenLoopRun). A slot is one request in flight. */
export interface TransportRun {
  readonly recorder: Recorder;
  readonly schedule: Schedule;
  readonly inFlightCap: number;
  /** Per slot: the request's kind (an index into the plan's kinds). */
  readonly kind: Int32Array;
  /** Per slot: when the request reached a connected socket, or −1 while it has not. */
  readonly sentAtUs: Float64Array;
  /** µs since the run started (integer). */
  nowUs(): number;
  /**
   * µs since the run started, with every interval that ended by then closed. A transport calls it
   * before changing a count an interval gauge samples (keys per shard, hits), so the first request
   * or response after a boundary lands in its own interval, not in the one closing.
   */
  advance(): number;
  /** The transport wrote slot's request to a connected socket at `nowUs`. */
  markSent(slot: number, nowUs: number): void;
  /** Since when slot's request has waited for its answer: its write, or its intended time while it waits for a connection. */
  waitingSinceUs(slot: number): number;
  /**
   * Slot's request finished (reason 0 = ok) and the slot is free. One that never reached the wire
   * (refused while dialing, still waiting for a connection at the end) is failed, but not sent.
   */
  complete(slot: number, reason: number, nowUs: number): void;
}

/** Connection failures every real driver reports with the same reason names. */
export const SOCKET_CAUSES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  closed: 'closed',
  timeout: 'timeout',
  /** The server broke the protocol (a bad status line or frame, a response nobody asked for). */
  protocol: 'protocol_error',
};
