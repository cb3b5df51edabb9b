/** Raised when a run cannot start (an unavailable target, a worker that died before it was ready): exit code 3. */
export class RunStartError extends Error {
  override readonly name = 'RunStartError';
}
