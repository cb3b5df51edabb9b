/*
 * The bad-input corpus: broken profiles and topologies (files under profiles/ and topologies/) and
 * broken command lines, each with the exit code and a fragment of the message it must give. Every
 * case fails before any traffic or output folder; none may be an internal error (70), a stack trace
 * or a hang. Run in-process by test/corpus/corpus.test.ts, a subset spawned by test/cli/corpus.test.ts.
 *
 * In argv, {out} is a fresh folder that must not exist afterwards and {empty} an empty folder.
 */

export interface CorpusCase {
  name: string;
  argv: string[];
  exit: number;
  /** A fragment stderr must contain. */
  stderr: string;
  env?: Record<string, string>;
}

const DIR = 'test/corpus';
const BASE = `${DIR}/base.yaml`;

/** A broken profile, checked by `validate`. */
function profile(name: string, stderr: string): CorpusCase {
  return { name: `profile ${name}`, argv: ['validate', `${DIR}/profiles/${name}.yaml`], exit: 2, stderr };
}

/** A command line around the valid base profile. */
function line(name: string, argv: string[], stderr: string, env?: Record<string, string>): CorpusCase {
  return { name, argv: argv.map((a) => (a === '{base}' ? BASE : a)), exit: 2, stderr, ...(env && { env }) };
}

export const PROFILE_CASES: readonly CorpusCase[] = [
  profile('syntax-tab', 'Tabs are not allowed as indentation'),
  profile('syntax-unclosed', 'YAML syntax error'),
  profile('duplicate-key', 'Map keys must be unique'),
  profile('multiple-docs', 'remove the "---" separator'),
  profile('alias-bomb', 'alias-bomb.yaml:2:8  YAML aliases expand to too much data'),
  profile('unresolved-alias', 'YAML alias cannot be resolved'),
  profile('empty', 'expected a mapping, got null'),
  profile('scalar-document', 'expected a mapping, got "hello"'),
  profile('list-document', 'expected a mapping, got a list'),
  profile('name-missing', 'missing required field "name"'),
  profile('name-uppercase', 'name: expected lower-case letters, digits and dashes'),
  profile('name-too-long', 'name: expected at most 100 characters'),
  profile('name-number', 'name: expected text, got 123'),
  profile('name-path', 'name: expected lower-case letters, digits and dashes, got "../../etc"'),
  profile('unknown-field', 'rat: unknown field "rat"'),
  profile('phases-missing', 'missing required field "phases"'),
  profile('phases-empty', 'phases: expected at least 1 item'),
  profile('phase-type-unknown', 'got "stedy"'),
  profile('phase-rate-string', 'phases[0].rate: expected a number ≥ 0, got "fast"'),
  profile('phase-rate-negative', 'phases[0].rate: expected a number ≥ 0, got -1'),
  profile('phase-rate-nan', 'phases[0].rate: expected a number ≥ 0, got NaN'),
  profile('phase-duration-zero', 'phases[0].duration: expected a duration > 0'),
  profile('phase-duration-unit', 'got "10 parsecs"'),
  profile('duration-zero', 'duration: expected a duration > 0'),
  profile('duration-short', 'expected duration ≥ the sum of the phase durations'),
  profile('spike-zero', 'phases[0]: expected a duration > 0'),
  profile('spike-duration-short', 'expected duration ≥ rise+hold+decay'),
  profile('step-steps-zero', 'phases[0].steps: expected a whole number ≥ 1'),
  profile('seed-negative', 'seed: expected a whole number ≥ 0, got -1'),
  profile('seed-float', 'seed: expected a whole number ≥ 0, got 1.5'),
  profile('arrivals-unknown', 'got "bursty"'),
  profile('mix-empty', 'mix: expected at least 1 item'),
  profile('mix-weight-zero', 'mix[0].weight: expected a number > 0'),
  profile('keys-count-zero', 'keys.count: expected a whole number ≥ 1'),
  profile('zipf-negative', 'keys.popularity.s: expected a number > 0'),
  profile('hotspot-too-small', 'expected keyFraction × count ≥ 1'),
  profile('hot-peaks-over-one', 'peaks to add up to at most 1'),
  profile('clients-duplicate', 'duplicate client name "web"'),
  profile('client-two-rates', 'expected exactly one of share, rate, phases'),
  profile('client-end-before-start', 'clients[0].end: expected end after start'),
  profile('multiplier-unknown-client', 'expected the name of a client, got "mobile"'),
  profile('multiplier-until-before-at', 'multipliers[0].until: expected until after at'),
  profile('slo-percentile-100', 'slo.latency[0].percentile'),
  profile('slo-kind-unknown', 'slo.latency[0].kind: expected a request kind'),
  profile('slo-error-rate-two', 'slo.errorRate: expected a number between 0 and 1'),
  profile('target-scheme', 'unknown scheme "gopher"'),
  profile('target-port-range', 'port 99999 is out of range 1–65535'),
  profile('target-http-path', 'with no path'),
  profile('stats-path-host', 'http.statsPath: expected a path on the target'),
  profile('stats-path-url', 'http.statsPath: expected a path on the target'),
  profile('stats-path-backslash', 'http.statsPath: expected a path on the target'),
  profile('http-timeout-zero', 'http.timeout: expected a duration > 0'),
  profile('http-connections-zero', 'http.connections: expected a whole number ≥ 1'),
  profile('http-request-kind-unknown', 'http.requests.getPost: expected a request kind'),
  profile('http-placeholder-unknown', 'unknown placeholder {{kee}}'),
  profile('memcached-hash-unknown', 'got "crc32"'),
  profile('memcached-timeout-zero', 'memcached.timeout: expected a duration > 0'),
  profile('memcached-operation-kind-unknown', 'memcached.operations.fetch'),
  profile('redis-timeout-zero', 'redis.timeout: expected a duration > 0'),
  profile('redis-operation-kind-unknown', 'redis.operations.fetch'),
  profile('production-percentiles-decreasing', 'production.valueSize.p99: expected p99 ≥ p50'),
  profile('topology-missing', 'topology-missing.yaml  topology: missing: the target is the model'),
  profile(
    'secret-malformed',
    "http.requests.default.headers.x-api-key: expected ${NAME} (an environment variable: letters, digits, _), got a string (not shown: it is a secret's field)",
  ),
  profile('keys-file-missing', 'keys-file-missing.yaml:3:15  keys.file: cannot read key file "test/corpus/profiles/data/no-such-keys.csv": no such file'),
  profile('keys-file-bad-weight', 'bad-weight.csv:3:8  weight: expected a number ≥ 0, got "many"'),
  profile('topology-file-missing', 'cannot read topology file'),
  profile('topology-file-broken', 'bad-workers.yaml:3:19  topology.services.api.workers'),
  profile('topology-file-syntax', 'syntax.yaml:4:1  YAML syntax error'),
  profile('topology-file-alias-bomb', 'alias-bomb.yaml:2:8  YAML aliases expand to too much data'),
  profile('topology-entry-unknown', 'topology.entry: expected the name of a service, got "web"'),
  profile('topology-field-unknown', 'workerz'),
];

/** Unknown options, for every command: refused before the command does anything. */
const UNKNOWN_OPTION_CASES: readonly CorpusCase[] = [
  ['run', '{base}'],
  ['validate', '{base}'],
  ['lint', '{base}'],
  ['qualify', '{base}'],
  ['sweep', '{base}', '--vary', 'phases[0].rate=10..20'],
  ['report', '{empty}'],
  ['compare', '{empty}', '{empty}'],
  ['history', '{empty}'],
  ['serve', 'reference'],
  ['schema'],
  ['export', 'k6', '{base}'],
].map((argv) => line(`${argv[0]} --bogus`, [...argv, '--bogus'], 'unknown option --bogus'));

export const COMMAND_LINE_CASES: readonly CorpusCase[] = [
  ...UNKNOWN_OPTION_CASES,
  line('run with the issue’s --rate', ['run', '{base}', '--rate', '5', '--out', '{out}'], 'stampede: unknown option --rate (see stampede run --help)'),
  line('an extra positional argument', ['run', '{base}', 'extra', '--out', '{out}'], 'unexpected argument "extra"'),
  line('no command', [], 'name a command'),
  line('an unknown command', ['launch', '{base}'], 'unknown command "launch"'),
  line('validate without a profile', ['validate'], 'missing an argument: stampede validate <profile>'),
  line('a missing profile file', ['validate', `${DIR}/profiles/does-not-exist.yaml`], 'cannot read the profile: no such file'),
  line('a profile that is a folder', ['validate', `${DIR}/profiles`], 'cannot read the profile: a directory, not a regular file'),
  line('qualify --growth 1', ['qualify', '{base}', '--growth', '1', '--out', '{out}'], '--growth: expected a number > 1 and ≤ 10, got "1"'),
  line('qualify --growth abc', ['qualify', '{base}', '--growth', 'abc', '--out', '{out}'], '--growth: expected a number > 1'),
  line('qualify --growth without a value', ['qualify', '{base}', '--out', '{out}', '--growth'], '--growth: expected a value'),
  line('qualify --growth twice', ['qualify', '{base}', '--growth', '2', '--growth', '3', '--out', '{out}'], '--growth: given more than once'),
  line('qualify --start 0', ['qualify', '{base}', '--start', '0', '--out', '{out}'], '--start: expected a number > 0'),
  line('qualify --start NaN', ['qualify', '{base}', '--start', 'NaN', '--out', '{out}'], '--start: expected a number > 0, got "NaN"'),
  line('qualify --resolution 1.5', ['qualify', '{base}', '--resolution', '1.5', '--out', '{out}'], '--resolution: expected a number > 0 and < 1'),
  line('qualify --max-steps 0', ['qualify', '{base}', '--max-steps', '0', '--out', '{out}'], '--max-steps: expected a whole number ≥ 1 and ≤ 100'),
  line('qualify --max-steps 1e6', ['qualify', '{base}', '--max-steps', '1e6', '--out', '{out}'], '--max-steps: expected a whole number ≥ 1 and ≤ 100'),
  line('qualify --repeats 0', ['qualify', '{base}', '--repeats', '0', '--out', '{out}'], '--repeats: expected a whole number ≥ 1 and ≤ 10, got "0" (e.g. --repeats 2)'),
  line('qualify --repeats 1.5', ['qualify', '{base}', '--repeats', '1.5', '--out', '{out}'], '--repeats: expected a whole number ≥ 1 and ≤ 10'),
  line('qualify --repeats many', ['qualify', '{base}', '--repeats', 'many', '--out', '{out}'], '--repeats: expected a whole number'),
  line('qualify --step 0', ['qualify', '{base}', '--step', '0', '--out', '{out}'], '--step: expected a duration > 0'),
  line('qualify --warmup soon', ['qualify', '{base}', '--warmup', 'soon', '--out', '{out}'], '--warmup: expected a duration'),
  line('qualify a remote --target', ['qualify', '{base}', '--target', 'http://example.com:80', '--out', '{out}'], '--target: example.com is not a loopback host'),
  line('run --seed with --set seed=', ['run', '{base}', '--seed', '3', '--set', 'seed=4', '--out', '{out}'], '--seed: conflicts with --set seed=…'),
  line('run --seed -1', ['run', '{base}', '--seed', '-1', '--out', '{out}'], '--seed: expected a whole number ≥ 0'),
  line('run --interval 0', ['run', '{base}', '--interval', '0', '--out', '{out}'], '--interval: expected a duration > 0'),
  line('run --workers 0', ['run', '{base}', '--workers', '0', '--out', '{out}'], '--workers: expected a whole number ≥ 1 and ≤ 64'),
  line('run --workers on the model', ['run', '{base}', '--workers', '2', '--out', '{out}'], '--workers: applies to real targets'),
  line('run --target gopher', ['run', '{base}', '--target', 'gopher://127.0.0.1:70', '--out', '{out}'], '--target: target "gopher://127.0.0.1:70": unknown scheme'),
  line('run --target port 0', ['run', '{base}', '--target', 'http://127.0.0.1:0', '--out', '{out}'], 'port 0 is out of range 1–65535'),
  line('run a remote http --target', ['run', '{base}', '--target', 'http://10.1.2.3:8080', '--out', '{out}'], '--allow-remote 10.1.2.3'),
  line(
    'run a remote memcached server',
    ['run', '{base}', '--target', 'memcached://127.0.0.1:11211,cache-2.example.com:11211', '--out', '{out}'],
    'cache-2.example.com is not a loopback host',
  ),
  line(
    'run a name that resolves to loopback',
    ['run', '{base}', '--target', 'http://localhost.localdomain:8080', '--out', '{out}'],
    'localhost.localdomain is not a loopback host',
  ),
  line(
    'run a remote host another one was allowed for',
    ['run', '{base}', '--target', 'http://10.1.2.3:8080', '--allow-remote', '10.9.9.9', '--out', '{out}'],
    '10.1.2.3 is not a loopback host',
    {
      STAMPEDE_ALLOW_REMOTE: '10.8.8.8',
    },
  ),
  line('run a profile with a remote target:', ['run', `${DIR}/profiles/target-remote.yaml`, '--out', '{out}'], 'target-remote.yaml: target: 10.1.2.3 is not a loopback host'),
  line(
    'qualify a profile with a remote memcached server',
    ['qualify', `${DIR}/profiles/target-remote-memcached.yaml`, '--out', '{out}'],
    'cache-2.example.com is not a loopback host',
  ),
  line(
    'run with a ${NAME} not set',
    ['run', `${DIR}/profiles/secret-unset.yaml`, '--out', '{out}'],
    'secret-unset.yaml:6:42  http.requests.default.headers.authorization: environment variable STAMPEDE_CORPUS_NEVER_SET is not set',
  ),
  line('qualify with a ${NAME} not set', ['qualify', `${DIR}/profiles/secret-unset.yaml`, '--out', '{out}'], 'environment variable STAMPEDE_CORPUS_NEVER_SET is not set'),
  line(
    'run a profile without a topology on the model',
    ['run', `${DIR}/profiles/secret-unset.yaml`, '--target', 'model', '--out', '{out}'],
    'secret-unset.yaml  topology: missing',
  ),
  line('lint a profile without a topology for the model', ['lint', `${DIR}/profiles/secret-unset.yaml`, '--target', 'model'], 'topology: missing'),
  line('run --out without a value', ['run', '{base}', '--out'], '--out: expected a value'),
  line('run --set without =', ['run', '{base}', '--set', 'seed', '--out', '{out}'], 'expected path=value'),
  line('run --set a mistyped path', ['run', '{base}', '--set', 'phasez[0].rate=1', '--out', '{out}'], 'phasez: unknown field "phasez"'),
  line('run --set past the end of a list', ['run', '{base}', '--set', 'phases[5].rate=1', '--out', '{out}'], 'phases has 1 item'),
  line('run --set a YAML syntax error', ['run', '{base}', '--set', 'seed=[1', '--out', '{out}'], 'syntax error'),
  line('run --set an unresolved alias', ['run', '{base}', '--set', 'seed=*x', '--out', '{out}'], 'YAML alias cannot be resolved'),
  line('run --set a zero duration', ['run', '{base}', '--set', 'phases[0].duration=0s', '--out', '{out}'], 'phases[0].duration: expected a duration > 0'),
  line('run --production-sample missing', ['run', '{base}', '--production-sample', `${DIR}/nope.csv`, '--out', '{out}'], '--production-sample: cannot read'),
  line('sweep --vary with a mistyped path', ['sweep', '{base}', '--vary', 'phasez[0].rate=10..20'], '--vary phasez[0].rate=10..20: phasez[0].rate=10: phasez: unknown field'),
  line('sweep --vary to an invalid value', ['sweep', '{base}', '--vary', 'keys.count=1..2', '--steps', '3'], '--vary keys.count=1..2: keys.count=1.5'),
  line('sweep --vary without =', ['sweep', '{base}', '--vary', 'rate'], '--vary: expected path=a..b or path=v1,v2'),
  line('sweep three --vary', ['sweep', '{base}', '--vary', 'a=1,2', '--vary', 'b=1,2', '--vary', 'c=1,2'], '--vary: given 3 times'),
  line('sweep --steps 100000', ['sweep', '{base}', '--vary', 'phases[0].rate=10..20', '--steps', '100000'], '--steps: expected a whole number ≥ 2 and ≤ 100'),
  line('sweep --steps 1', ['sweep', '{base}', '--vary', 'phases[0].rate=10..20', '--steps', '1'], '--steps: expected a whole number ≥ 2'),
  line('sweep too many points', ['sweep', '{base}', '--vary', 'phases[0].rate=10..20', '--vary', 'seed=1..99', '--steps', '99'], '9801 grid points; at most 1000'),
  line('sweep --window backwards', ['sweep', '{base}', '--vary', 'phases[0].rate=10..20', '--window', '9s..1s'], '--window: expected from..to'),
  line('sweep --parallel 0', ['sweep', '{base}', '--vary', 'phases[0].rate=10..20', '--parallel', '0'], '--parallel: expected a whole number ≥ 1'),
  line('sweep without --vary', ['sweep', '{base}'], 'Missing required argument: vary'),
  line('serve an unknown service', ['serve', 'cache'], 'Invalid values'),
  line('serve --memcached port 99999', ['serve', 'reference', '--memcached', '127.0.0.1:99999'], '--memcached: expected a whole number ≥ 1 and ≤ 65535, got "99999"'),
  line('serve --memcached without a port', ['serve', 'reference', '--memcached', '127.0.0.1'], '--memcached: expected host:port'),
  line('serve a remote --memcached', ['serve', 'reference', '--memcached', 'cache.example.com:11211'], '--memcached: cache.example.com is not a loopback host'),
  line('serve --port 70000', ['serve', 'reference', '--port', '70000'], '--port: expected a whole number ≥ 0 and ≤ 65535'),
  line('serve --limit 0', ['serve', 'reference', '--limit', '0'], '--limit: expected a whole number ≥ 1'),
  line('serve --pool-max-open 0', ['serve', 'reference', '--pool-max-open', '0'], '--pool-max-open: expected a whole number ≥ 1'),
  line('serve --checkout-timeout soon', ['serve', 'reference', '--checkout-timeout', 'soon'], '--checkout-timeout: expected a duration > 0'),
  line('report a folder without a run', ['report', '{empty}'], 'no result.json or qualification.json'),
  line('compare folders without runs', ['compare', '{empty}', '{empty}'], 'no result.json or qualification.json'),
  line('history of a folder without runs', ['history', '{empty}'], 'no runs under'),
  line('export k6 of a profile on the model', ['export', 'k6', '{base}', '-o', '{out}'], 'a k6 script needs an HTTP target: give --target http://host:port'),
  line('export k6 of a memcached target', ['export', 'k6', '{base}', '--target', 'memcached://127.0.0.1:11211', '-o', '{out}'], 'k6 core speaks HTTP, not memcached'),
  line('export to an unknown format', ['export', 'jmeter', '{base}', '-o', '{out}'], 'Invalid values'),
  line('lint a k6 script that does not compile', ['lint', 'test/fixtures/k6/does-not-compile.js'], 'it does not compile: Expected identifier'),
  line('lint a k6 script whose init code throws', ['lint', 'test/fixtures/k6/throws-in-init.js'], 'its init code threw: set SHOP_URL'),
  line('lint a k6 script with --set', ['lint', 'profiles/k6/open-model.js', '--set', 'seed=1'], '--set, --target and --production-sample apply to profiles, not to k6 scripts'),
];

/** Every case. */
export const CORPUS: readonly CorpusCase[] = [...PROFILE_CASES, ...COMMAND_LINE_CASES];
