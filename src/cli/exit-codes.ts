/** Exit codes, stable for CI scripts. */
export const ExitCode = {
  /** The run finished and its SLO held (or it had none). */
  Ok: 0,
  /** The run finished and its SLO failed, or a realism flag made its verdict INVALID. */
  SloFailed: 1,
  /** Bad profile, bad override, bad command line. */
  InvalidInput: 2,
  /** The run could not start (unknown or unavailable target, output folder not writable, …). */
  CouldNotStart: 3,
  /** Interrupted (Ctrl-C): what was measured is written; the SLO verdict is not trusted. */
  Interrupted: 130,
} as const;
