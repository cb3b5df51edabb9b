/*
 * Runs inside the QuickJS sandbox, never in Node: the stand-in k6 modules, the k6 globals, and the
 * harness the host drives. k6/http records each request instead of sending it, k6/execution reads
 * the clock the host sets before each call, checks pass, sleeps return at once, metrics drop their
 * samples. Modules it does not know (other k6 modules, remote jslib imports) are permissive: any
 * property is callable and returns the same permissive value, so init code runs and its options
 * can be read. Everything the host gets back is a JSON string made here; the one host function the
 * script can reach is `readFile`, behind `open()`, and it takes and returns only primitives.
 *
 * The file is one function expression: the host evaluates it, then calls it with `readFile` and
 * `__ENV` as JSON.
 */
(function standIn(readFile, envJson) {
  // Taken before the script runs: a script that replaces JSON.stringify spoils only its own answer.
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const keys = Object.keys;

  const clock = { vu: 1, elapsedMs: 0, scenario: 'default', iteration: 0 };
  let requests = [];

  /** A value any property read or call of which gives itself: what an unknown module is. */
  function permissive() {
    const proxy = new Proxy(() => undefined, {
      // Not thenable and not an ES module namespace: awaiting or importing it must not hang or unwrap.
      get: (_t, key) => (key === Symbol.toPrimitive ? () => '' : key === 'then' || key === '__esModule' ? undefined : proxy),
      apply: () => proxy,
      construct: () => proxy,
    });
    return proxy;
  }

  function k6Core() {
    return {
      check: (value, checks) => Object.values(checks).every((c) => Boolean(c(value))),
      group: (_name, body) => body(),
      sleep: () => undefined,
      fail: (message) => {
        throw new Error(message ?? 'fail()');
      },
      randomSeed: () => undefined,
    };
  }

  function http() {
    const response = (url) => ({ status: 200, url, body: null, headers: {}, timings: { duration: 0, waiting: 0 }, error: '', error_code: 0, json: () => null });
    const request = (method, url, body, params) => {
      requests.push({ method: String(method), url: String(url), body: body ?? null, params });
      return response(String(url));
    };
    const withoutBody = (method) => (url, params) => request(method, url, null, params);
    const withBody = (method) => (url, body, params) => request(method, url, body, params);
    return {
      request,
      asyncRequest: async (method, url, body, params) => request(method, url, body, params),
      get: withoutBody('GET'),
      head: withoutBody('HEAD'),
      options: withBody('OPTIONS'),
      del: withBody('DELETE'),
      post: withBody('POST'),
      put: withBody('PUT'),
      patch: withBody('PATCH'),
      batch: (list) => {
        const send = (r) => (typeof r === 'string' ? request('GET', r) : Array.isArray(r) ? request(r[0], r[1], r[2], r[3]) : request('GET', String(r)));
        return Array.isArray(list) ? list.map(send) : Object.fromEntries(Object.entries(list).map(([k, r]) => [k, send(r)]));
      },
      url: (strings, ...values) => strings.reduce((out, s, i) => out + s + (i < values.length ? String(values[i]) : ''), ''),
      expectedStatuses: () => () => true,
      setResponseCallback: () => undefined,
      cookieJar: () => permissive(),
      file: (data) => ({ data }),
    };
  }

  function execution() {
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
      constructor(name) {
        this.name = name;
      }
      add() {}
    }
    return { Counter: class Counter extends Metric {}, Gauge: class Gauge extends Metric {}, Rate: class Rate extends Metric {}, Trend: class Trend extends Metric {} };
  }

  class SharedArray extends Array {
    // k6 calls the loader once and shares its array between VUs; here, one VU.
    constructor(_name, load) {
      super();
      this.push(...load());
    }
  }

  const modules = { k6: k6Core(), 'k6/http': http(), 'k6/execution': execution(), 'k6/metrics': metrics(), 'k6/data': { SharedArray } };
  const require = (name) => (Object.hasOwn(modules, name) ? modules[name] : permissive());

  globalThis.__ENV = parse(envJson);
  globalThis.__VU = 0;
  globalThis.__ITER = 0;
  globalThis.console = { log() {}, info() {}, warn() {}, error() {}, debug() {} };
  // k6 reads the file beside the script; the host decides which files that may be.
  globalThis.open = (path, mode) => readFile(String(path), mode === 'b');

  let exported = {};

  /** What the script threw, as text, whatever it threw (a getter or a Proxy as the error included). */
  function messageOf(error) {
    try {
      return String(error !== null && typeof error === 'object' && typeof error.message === 'string' ? error.message : error);
    } catch {
      return 'a value that cannot be printed';
    }
  }

  /** The recorded requests, emptied: each call hands back only its own. */
  function takeRequests() {
    const taken = requests;
    requests = [];
    return taken;
  }

  return {
    /** Runs the bundled script (a CommonJS function) and describes its exports: options and function names. */
    init(body) {
      let options;
      let functions;
      try {
        const module = { exports: {} };
        body(module, module.exports, require);
        exported = module.exports;
        options = exported.options ?? {};
        functions = keys(exported).filter((name) => typeof exported[name] === 'function');
      } catch (error) {
        return stringify({ threw: messageOf(error) });
      }
      try {
        return stringify({ options, functions, requests: takeRequests() });
      } catch (error) {
        return stringify({ unreadable: messageOf(error) });
      }
    },
    /** Calls an exported function at the host's clock; the requests it made, as JSON. */
    call(name, vu, elapsedMs, scenario, iteration) {
      clock.vu = vu;
      clock.elapsedMs = elapsedMs;
      clock.scenario = scenario;
      clock.iteration = iteration;
      try {
        exported[name]();
        return stringify({ requests: takeRequests() });
      } catch (error) {
        return stringify({ threw: messageOf(error) });
      }
    },
  };
});
