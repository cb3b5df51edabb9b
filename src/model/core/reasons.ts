/**
 * Why a request or call failed. Short snake_case names, registered with the recorder at setup;
 * code 0 is success. A failure deep in the stack fails every caller above it with the same reason.
 */
export const REASON_NAMES = [
  'ok',
  'timeout',
  'dial_error',
  'checkout_timeout',
  'queue_full',
  'pool_disabled',
  'unfinished',
  'connection_refused',
  'connection_reset',
  'rate_limited',
  'expired',
  'no_live_node',
] as const;
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
/** The destination process is down (OOM-killed, restarting): nothing listens on the port. */
export const CONNECTION_REFUSED = 7;
/** The destination process died with the request in it. */
export const CONNECTION_RESET = 8;
/** The destination's quota, rate limit or admission control turned the request away. */
export const RATE_LIMITED = 9;
/** Waited in a queue longer than its dropAfter: dropped at dequeue instead of served. */
export const EXPIRED = 10;
/** Every node the call's key could go to is marked down in the instance's own view: nobody was asked. */
export const NO_LIVE_NODE = 11;
