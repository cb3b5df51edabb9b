/** The incidents (shared/incidents.md) the flags echo, quoted the same way everywhere. */
export const INCIDENT = {
  bluesky: 'Bluesky 2026-04: 20k-URI batches from a caller sending < 3 req/s (incidents §1)',
  twitter2011: 'Twitter 2011-08: unhealthy shards ejected per client (incidents §2)',
  twitter2012: 'Twitter 2012-07: timeouts that did not fire, requests ran 30 s (incidents §2)',
  twitter2013: 'Twitter 2013-01: morning peak on new hosts, GC death spiral (incidents §2)',
  twitter2014a: 'Twitter 2014-01: 150 ms timeouts retried on new connections, ~160k connections (incidents §2)',
  twitter2014b: 'Twitter 2014-03: the Oscars selfie, one hot key (incidents §2)',
  twitter2016a: 'Twitter 2016-01: a 5× spike in one DC (incidents §2)',
  twitter2016b: 'Twitter 2016-07: hit rate 99.8% → 84% after a membership change (incidents §2)',
  twitter2018a: 'Twitter 2018-04: hot key with large values, detection tuned for ≤ 5 KB (incidents §2)',
  twitter2018b: 'Twitter 2018-06: shards handled ~50% of what unrepresentative load tests showed (incidents §2)',
  blackFriday: 'Black Friday (Release It!): a pool with no checkout timeout (incidents §3)',
  openlinker: 'openlinker#2933: a saturated k6 still said VALID (anchors §2.5)',
  noisySecond: 'issue 18: one stalled second decided the capacity (nginx limit_req qualified at 2,960 then 1,450 r/s)',
  coordinatedOmission: 'coordinated omission: closed-loop tools hide stalls (anchors §2.3)',
} as const;
