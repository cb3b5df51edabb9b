/**
 * Why a request or call failed. Short snake_case names, registered with the recorder at setup;
 * code 0 is success. A failure deep in the stack fails every caller above it with the same reason.
 */
export const REASON_NAMES = ['ok', 'timeout', 'dial_error', 'checkout_timeout', 'queue_full', 'pool_disabled', 'unfinished'] as const;
export type ReasonName = (typeof REASON_NAMES)[number];

export const OK = 0;
/** No reply within the client group's timeout; the connection is closed (TIME_WAIT), server work goes on. */
export const TIMEOUT = 1;
/** No free ephemeral port to the destination: "bind: address already in use". */
export const DIAL_ERROR = 2;
/** The pool stayed at maxOpen for the whole checkoutTimeout. */
export const CHECKOUT_TIMEOUT = 3;
/** The destination's wait queue was at its limit. */
export const QUEUE_FULL = 4;
/** The pool's maxOpen is 0: calls through it are switched off. */
export const POOL_DISABLED = 5;
/** Still in flight when the run's drain limit ran out. */
export const UNFINISHED = 6;
