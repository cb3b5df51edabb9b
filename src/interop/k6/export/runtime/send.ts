/*
 * The emitted script's iteration: one iteration is one request of one client group. Its kind is
 * drawn from the client's mix, its batch of keys and its value size from the profile's
 * distributions, each by the schedule's own code (the bundle), and the kind's request template is
 * filled as stampede's HTTP driver fills it (path placeholders URL-encoded, headers and body as is).
 * k6 gives each VU its own JavaScript runtime, so every VU seeds its own streams from the profile's
 * seed and its VU id: the same run replays, VUs never share state.
 */
export const SEND_SOURCE = `
interface Drawn {
  kind: string;
  client: string;
  keys: string[];
  valueSize: number;
  seq: number;
}

/** One client's request stream in this VU, seeded from the profile's seed and the VU id. */
class ClientStream {
  private readonly keys: { prepare(measuredUs: number): void; draw(): number };
  private readonly pickKind: () => number;
  private readonly batch: (() => number)[];
  private readonly valueSize: (() => number)[];

  constructor(private readonly shape: ClientShape, vu: number) {
    const content = new SCHEDULE.Rng(SCHEDULE.deriveSeed(SEED, 'requests:' + shape.name + ':vu' + vu));
    // One-hit wonders draw on a stream of their own, as the schedule's do.
    const once = KEYS.oneHitWonders !== undefined ? new SCHEDULE.Rng(SCHEDULE.deriveSeed(SEED, 'once:' + shape.name + ':vu' + vu)) : undefined;
    this.keys = new SCHEDULE.KeyDrawer(KEYS, shape.name, new SCHEDULE.Rng(SCHEDULE.deriveSeed(SEED, 'keys:' + shape.name + ':vu' + vu)), once);
    this.pickKind = SCHEDULE.cumulativePicker(shape.weights, content);
    this.batch = shape.batch.map((d) => SCHEDULE.createSampler(d, content));
    this.valueSize = shape.valueSize.map((d) => SCHEDULE.createSampler(d, content));
  }

  next(measuredUs: number, seq: number): Drawn {
    const option = this.pickKind();
    const batch = Math.max(1, this.batch[option]());
    this.keys.prepare(measuredUs);
    const keys: string[] = [];
    for (let i = 0; i < batch; i++) keys.push(KEY_NAMES.keyName(this.keys.draw()));
    return { kind: this.shape.kinds[option], client: this.shape.name, keys, valueSize: this.valueSize[option](), seq };
  }
}

const PLACEHOLDER = /\\{\\{\\s*([^}\\s]*)\\s*\\}\\}/g;

/** The template text with its placeholders filled; in a path every value is URL-encoded. */
function fill(text: string, r: Drawn, encode: boolean): string {
  return text.replace(PLACEHOLDER, (whole: string, field: string) => {
    const value = fieldValue(field, r);
    if (value === null) return whole;
    return encode ? encodeURIComponent(value) : value;
  });
}

function fieldValue(field: string, r: Drawn): string | null {
  switch (field) {
    case 'key':
      return r.keys[0];
    case 'keys':
      return r.keys.join(',');
    case 'keys:json':
      return JSON.stringify(r.keys);
    case 'batch':
      return String(r.keys.length);
    case 'value':
      return valueBytes(r.valueSize);
    case 'valueSize':
      return String(r.valueSize);
    case 'seq':
      return String(r.seq);
    case 'client':
      return r.client;
    case 'kind':
      return r.kind;
    default:
      return null;
  }
}

let slab = '';
/** A printable value of n bytes, sliced from one slab that grows as larger values are drawn. */
function valueBytes(n: number): string {
  while (slab.length < n) slab += slab.length === 0 ? 'v'.repeat(1024) : slab;
  return slab.substring(0, n);
}

const streams: ClientStream[] = [];

/** One request of client group \`client\` (an index into CLIENTS), at the time k6 started this iteration. */
function send(client: number): void {
  if (streams[client] === undefined) streams[client] = new ClientStream(CLIENTS[client], exec.vu.idInTest);
  const elapsedUs = exec.instance.currentTestRunDuration * 1000;
  const r = streams[client].next(elapsedUs - WARMUP_US, exec.scenario.iterationInTest);
  const template = TEMPLATES[r.kind] === undefined ? TEMPLATES['default'] : TEMPLATES[r.kind];
  const headers: Record<string, string> = {};
  for (const name of Object.keys(template.headers)) headers[name] = fill(template.headers[name], r, false);
  const body = template.body === null ? null : fill(template.body, r, false);
  http.request(template.method, BASE_URL + fill(template.path, r, true), body, {
    headers,
    timeout: TIMEOUT,
    // name groups URLs by template, so one key per URL does not make one metric series per key.
    tags: { name: template.name, kind: r.kind, client: r.client, window: elapsedUs < WARMUP_US ? 'warmup' : 'measured' },
  });
}
`;
