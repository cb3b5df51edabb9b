/** The run cannot start together with its other segments (they never all arrived, or started without this one): exit 3, nothing sent. */
export class BarrierError extends Error {
  override readonly name = 'BarrierError';
}

/** A signal while waiting at the barrier: the segment leaves before sending anything (exit 130 or 143, as the signal says). */
export class BarrierInterrupted extends Error {
  override readonly name = 'BarrierInterrupted';
}
