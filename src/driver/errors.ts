/** Raised when a run cannot start (an unavailable target, a worker that died before it was ready): exit code 3. */
export class RunStartError extends Error {
  override readonly name = 'RunStartError';
}

/** A timeline the target cannot play as written (a model-only event, exec without --allow-exec): bad input, exit 2, naming the event. */
export class TimelineRefusedError extends Error {
  override readonly name = 'TimelineRefusedError';
}
