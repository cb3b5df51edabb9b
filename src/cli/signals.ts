import { ExitCode } from './exit-codes.ts';

/**
 * After the first signal, further ones are ignored this long so the final files get written; a
 * signal after that exits at once (a stuck write must not make the process unstoppable). The
 * files are written atomically and a signal is handled only between two writes, so even that exit
 * leaves whole files.
 */
export const WRITE_GRACE_MS = 30_000;

const EXIT_CODES = { SIGINT: ExitCode.Interrupted, SIGTERM: ExitCode.Terminated } as const;
type HandledSignal = keyof typeof EXIT_CODES;

/** A command's interruption: one AbortSignal for SIGINT and SIGTERM, and the exit code they call for. */
export interface Interruption {
  /** Aborted on the first SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
  /** 130 after SIGINT, 143 after SIGTERM; undefined while none arrived. */
  readonly exitCode: number | undefined;
  /** Gives the signals back to their default action. */
  dispose(): void;
}

/**
 * Catches SIGINT and SIGTERM for the length of a command. The first aborts `signal` (the command
 * stops its traffic and writes what it measured); the listeners stay until `dispose`, so a second
 * Ctrl-C does not kill the process half-way through writing its files.
 */
export function catchInterruptions(stderr: (text: string) => void, exit: (code: number) => void = (code) => process.exit(code), graceMs = WRITE_GRACE_MS): Interruption {
  const abort = new AbortController();
  let first: { name: HandledSignal; atMs: number } | undefined;
  const onSignal = (name: HandledSignal) => {
    if (!first) {
      first = { name, atMs: Date.now() };
      stderr(`stampede: ${name}: stopping, writing what was measured (a second signal in the next ${graceMs / 1000} s is ignored)\n`);
      abort.abort();
      return;
    }
    const waitedMs = Date.now() - first.atMs;
    if (waitedMs < graceMs) {
      stderr(`stampede: ${name} ignored: still writing the results\n`);
      return;
    }
    stderr(`stampede: ${name}: exiting without waiting for the files (${Math.round(waitedMs / 1000)} s after the first signal)\n`);
    exit(EXIT_CODES[first.name]);
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    signal: abort.signal,
    get exitCode() {
      return first ? EXIT_CODES[first.name] : undefined;
    },
    dispose() {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}

/**
 * Waits on a finished command's linger (its exit code already set). A signal now only ends the wait,
 * at once: no "stopping, writing…", no 130/143. After a signal during the command there is no linger.
 */
export async function lingerUntilSignal(end: { linger(stop: AbortSignal): Promise<void> }, interruption: Interruption): Promise<void> {
  const stop = new AbortController();
  if (interruption.exitCode !== undefined) stop.abort();
  const onSignal = () => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Only once these listen: with no listener in between, a signal would take its default action (kill).
  interruption.dispose();
  try {
    await end.linger(stop.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
