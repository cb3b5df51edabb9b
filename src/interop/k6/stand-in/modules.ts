/*
 * A stand-in for the k6 modules a script imports, so a script runs in Node with no network: k6/http
 * records each request instead of sending it, k6/execution reads a clock the caller moves, checks
 * pass, sleeps return at once, metrics take their samples and drop them. Modules it does not know
 * (other k6 modules, remote jslib imports) are permissive: any property is callable and returns
 * the same permissive value, so a script's init code can run and its options be read.
 */

/** One request the script made, as k6/http would have sent it. */
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

export function standInModules(requests: RecordedRequest[], clock: StandInClock): Record<string, unknown> {
  return {
    k6: k6Core(),
    'k6/http': http(requests),
    'k6/execution': execution(clock),
    'k6/metrics': metrics(),
    'k6/data': {
      SharedArray: class SharedArray extends Array {
        // k6 calls the loader once and shares its array between VUs; here, one VU.
        constructor(_name: string, load: () => unknown[]) {
          super();
          this.push(...load());
        }
      },
    },
  };
}

function k6Core() {
  return {
    check: (value: unknown, checks: Record<string, (v: unknown) => unknown>) => Object.values(checks).every((c) => Boolean(c(value))),
    group: (_name: string, body: () => unknown) => body(),
    sleep: () => undefined,
    fail: (message?: string) => {
      throw new Error(message ?? 'fail()');
    },
    randomSeed: () => undefined,
  };
}

function http(requests: RecordedRequest[]) {
  const response = (url: string) => ({ status: 200, url, body: null, headers: {}, timings: { duration: 0, waiting: 0 }, error: '', error_code: 0, json: () => null });
  const request = (method: string, url: string, body?: unknown, params?: RecordedRequest['params']) => {
    requests.push({ method, url: String(url), body: body ?? null, params });
    return response(String(url));
  };
  const withoutBody = (method: string) => (url: string, params?: RecordedRequest['params']) => request(method, url, null, params);
  const withBody = (method: string) => (url: string, body?: unknown, params?: RecordedRequest['params']) => request(method, url, body, params);
  return {
    request,
    asyncRequest: async (method: string, url: string, body?: unknown, params?: RecordedRequest['params']) => request(method, url, body, params),
    get: withoutBody('GET'),
    head: withoutBody('HEAD'),
    options: withBody('OPTIONS'),
    del: withBody('DELETE'),
    post: withBody('POST'),
    put: withBody('PUT'),
    patch: withBody('PATCH'),
    batch: (list: unknown[] | Record<string, unknown>) => {
      const send = (r: unknown) => (typeof r === 'string' ? request('GET', r) : Array.isArray(r) ? request(r[0], r[1], r[2], r[3]) : request('GET', String(r)));
      return Array.isArray(list) ? list.map(send) : Object.fromEntries(Object.entries(list).map(([k, r]) => [k, send(r)]));
    },
    url: (strings: TemplateStringsArray, ...values: unknown[]) => strings.reduce((out, s, i) => out + s + (i < values.length ? String(values[i]) : ''), ''),
    expectedStatuses: () => () => true,
    setResponseCallback: () => undefined,
    cookieJar: () => permissive(),
    file: (data: unknown) => ({ data }),
  };
}

function execution(clock: StandInClock) {
  return {
    vu: {
      get idInTest() {
        return clock.vu;
      },
      get idInInstance() {
        return clock.vu;
      },
      iterationInScenario: 0,
      iterationInInstance: 0,
      tags: {},
      metrics: { tags: {}, metadata: {} },
    },
    instance: {
      get currentTestRunDuration() {
        return clock.elapsedMs;
      },
      iterationsInterrupted: 0,
      iterationsCompleted: 0,
      vusActive: 1,
      vusInitialized: 1,
    },
    scenario: {
      get name() {
        return clock.scenario;
      },
      get iterationInTest() {
        return clock.iteration;
      },
      get iterationInInstance() {
        return clock.iteration;
      },
      executor: '',
      startTime: 0,
      progress: 0,
    },
    test: { abort: () => undefined, options: {} },
  };
}

function metrics() {
  class Metric {
    constructor(readonly name: string) {}
    add(): void {}
  }
  return { Counter: class Counter extends Metric {}, Gauge: class Gauge extends Metric {}, Rate: class Rate extends Metric {}, Trend: class Trend extends Metric {} };
}

/** A value any property read or call of which gives itself: what an unknown module is. */
export function permissive(): unknown {
  const target = () => undefined;
  const proxy: unknown = new Proxy(target, {
    // Not thenable and not an ES module namespace: awaiting or importing it must not hang or unwrap.
    get: (_t, key) => (key === Symbol.toPrimitive ? () => '' : key === 'then' || key === '__esModule' ? undefined : proxy),
    apply: () => proxy,
    construct: () => proxy as object,
  });
  return proxy;
}
