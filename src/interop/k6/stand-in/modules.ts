/*
 * What the stand-in k6 modules (modules.sandbox.js, run inside the sandbox) report back: the
 * requests k6/http recorded instead of sending, and the clock k6/execution reads.
 */

/** One request the script made, as k6/http would have sent it (copied out of the sandbox as JSON). */
export interface RecordedRequest {
  method: string;
  url: string;
  body: unknown;
  params: { headers?: Record<string, string>; tags?: Record<string, string>; timeout?: string | number } | undefined;
}

/** What k6/execution reports; the caller moves it between iterations. */
export interface StandInClock {
  /** exec.vu.idInTest (1-based, as in k6). */
  vu: number;
  /** exec.instance.currentTestRunDuration, ms. */
  elapsedMs: number;
  /** exec.scenario.name. */
  scenario: string;
  /** exec.scenario.iterationInTest. */
  iteration: number;
}
