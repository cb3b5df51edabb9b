/**
 * Counters of the ops a cache executed, by memcached's own stat names where memcached has one
 * (`stats` of memcached 1.6: cmd_get counts keys asked, cmd_set every storage command, …). The
 * stored/not-stored outcomes of add, replace, append and prepend have no stat in memcached (it
 * counts them only in cmd_set): they are named after its replies here. cas_badval stays 0 — the
 * model holds no CAS uniques, so a cas succeeds whenever its key is present.
 */
export class CacheOpStats {
  /** Filled from the cache's gets and hits when the counters are read. */
  cmd_get = 0;
  get_hits = 0;
  get_misses = 0;
  /** Gets that found their item past its expiry (a miss; memcached's get_expired). */
  get_expired = 0;
  /** Storage commands: set, add, replace, cas, append, prepend and the fills of misses. */
  cmd_set = 0;
  /** Of cmd_set: the sets a miss's fill (look-aside or read-through) made. */
  fills = 0;
  add_stored = 0;
  add_not_stored = 0;
  replace_stored = 0;
  replace_not_stored = 0;
  append_stored = 0;
  append_not_stored = 0;
  prepend_stored = 0;
  prepend_not_stored = 0;
  cas_hits = 0;
  cas_misses = 0;
  cas_badval = 0;
  delete_hits = 0;
  delete_misses = 0;
  incr_hits = 0;
  incr_misses = 0;
  decr_hits = 0;
  decr_misses = 0;
  cmd_touch = 0;
  touch_hits = 0;
  touch_misses = 0;
  /** Items dropped at their expiry that no get had fetched since they were stored (memcached's expired_unfetched). */
  expired_unfetched = 0;
  /** Items LRU-evicted while unexpired (memcached's evictions). */
  evictions = 0;
}
