import type { Clock } from './clock.ts';
import { RunStartError } from './errors.ts';

/** Longest a run waits for its connections before the clock starts; dials still pending then carry on. */
const PREPARE_LIMIT_MS = 2000;

/**
 * Resolves when every connection is up, or after PREPARE_LIMIT_MS, whichever comes first. A target
 * none of whose connections could be made (every dial refused or failed, on every server) cannot
 * take the run at all: that rejects with RunStartError, before the clock starts (exit 3). A dial
 * still pending at the limit, or a target that fails later, is a result to record instead.
 */
export async function dialBeforeStart(connections: readonly { preconnect(): Promise<unknown>; readonly connected: boolean }[]): Promise<void> {
  let settled = false;
  const dialed = Promise.all(connections.map((c) => c.preconnect())).then(() => (settled = true));
  await Promise.race([dialed, new Promise<void>((resolve) => setTimeout(resolve, PREPARE_LIMIT_MS).unref())]);
  if (settled && connections.length > 0 && connections.every((c) => !c.connected)) {
    throw new RunStartError('no connection could be made to any server before the run (refused or unreachable)');
  }
}

/** What a run does before its clock starts. */
export interface StartBarrier {
  /** Opens the transport's connections, so dialing is not charged to the first requests. */
  prepare(): Promise<void>;
  /** Runs while the transport connects: JIT priming (prime.ts). */
  prime?: (() => Promise<unknown>) | undefined;
  /**
   * Called once connected; resolves to the run's start as epoch ms (the clock's origin + its
   * reading), shared by every worker and host. Default: the run starts when connected.
   */
  awaitStart?: (() => Promise<number>) | undefined;
}

/** Waits at the barrier; resolves to the run's time 0 on `clock`. */
export async function passBarrier(barrier: StartBarrier, clock: Clock): Promise<number> {
  await Promise.all([barrier.prepare(), barrier.prime?.()]);
  const startAt = barrier.awaitStart ? await barrier.awaitStart() : undefined;
  return startAt === undefined ? clock.nowMs() : startAt - clock.originEpochMs;
}
