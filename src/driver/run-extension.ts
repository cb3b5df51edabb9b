import type { Profile } from '../profile/types.ts';
import type { DriverReport } from '../recorder/driver-report.ts';
import type { Schedule } from '../schedule/types.ts';
import type { Clock } from './clock.ts';
import type { Transport } from './transport.ts';

/**
 * Something that plays beside a run on its clock and adds to its report (the profile's timeline).
 * The pacer never sees it: the run starts it with the clock and finishes it when the run ends.
 */
export interface RunExtension {
  /** The run's clock starts; `nowMs` reads it (0 = the run's start). */
  start(nowMs: () => number): void;
  /** The run ended (aborted, or not): what it adds to the run's report, once its own work is done. */
  finish(interrupted: boolean): Promise<Partial<DriverReport>>;
}

/** What an extension is made from, before the transport connects. */
export interface ExtensionContext {
  profile: Profile;
  schedule: Schedule;
  clock: Clock;
  transport: Transport;
}

/**
 * Makes a run's extension, or undefined when the profile asks for none. Called before any
 * connection: one the target cannot play is refused (throws) with nothing to close.
 */
export type ExtensionFactory = (context: ExtensionContext) => RunExtension | undefined;
