import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliResult, repoRoot, stampedeAsync } from '../helpers/cli.ts';

/*
 * Hostile k6 scripts through `stampede lint` (issue 19, scripts): a script's code runs in a QuickJS
 * sandbox and reaches no host object, file, network or process. Each escape tries to write a
 * marker file with node:fs and to put a variable of the host's environment into the options
 * (a scenario's name shows in the flags); each ends exit 2 naming the script and why, or in a
 * clean lint, and the marker never exists, the value never shows. Endless loops and memory bombs
 * end exit 2 at the sandbox's limits; a syntax error names its file and line.
 */

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'stampede-hostile-scripts-')));
const scripts = join(dir, 'scripts');
mkdirSync(join(scripts, 'sub'), { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MARKER = join(dir, 'escaped');
const CANARY = `canary-${process.pid}-${Date.now()}`;
/** What an escape does with the real process: a marker file, and the host's environment in the options. */
const WITH_PROCESS = (p: string) => `
  ${p}.getBuiltinModule('node:fs').writeFileSync(${JSON.stringify(MARKER)}, 'escaped');
  export const options = { scenarios: { [${p}.env.HOSTILE_CANARY]: { executor: 'constant-vus', vus: 1, duration: '30s' } } };`;

function script(name: string, code: string): string {
  const file = join(scripts, name);
  writeFileSync(file, code);
  return file;
}

/** `stampede lint file`, killed by its pid past `timeoutMs`: a script that hangs the CLI fails its test instead of hanging the suite. */
function lint(file: string, timeoutMs = 50_000, env: Record<string, string> = {}): Promise<CliResult> {
  return stampedeAsync(['lint', file], timeoutMs, { HOSTILE_CANARY: CANARY, ...env });
}

/** Exit 2 with one line naming the script and why, no stack, nothing escaped. */
function expectRefused(run: CliResult, file: string, problem: string): void {
  expect(run.stderr).toBe(`stampede: k6 script ${file}: ${problem}\n`);
  expect(run.stdout).toBe('');
  expect(run.status).toBe(2);
  expectContained(run);
}

function expectContained(run: CliResult): void {
  expect(existsSync(MARKER)).toBe(false);
  expect(run.stdout + run.stderr).not.toContain(CANARY);
}

beforeEach(() => rmSync(MARKER, { force: true }));

describe('escapes from a k6 script', () => {
  it.each([
    [
      '__ENV.constructor.constructor',
      'env.js',
      `const p = __ENV.constructor.constructor('return process')();${WITH_PROCESS('p')}`,
      "its init code threw: 'process' is not defined",
    ],
    // CommonJS: top-level `this` is the script's global, a host object under node:vm.
    [
      'this.constructor.constructor',
      'this.js',
      `const p = this.constructor.constructor('return process')();
       p.getBuiltinModule('node:fs').writeFileSync(${JSON.stringify(MARKER)}, 'escaped');
       module.exports.options = { scenarios: { [p.env.HOSTILE_CANARY]: { executor: 'constant-vus' } } };`,
      "its init code threw: 'process' is not defined",
    ],
    [
      "Function('return this')()",
      'function.js',
      `const g = Function('return this')();${WITH_PROCESS('g.process')}`,
      "its init code threw: cannot read property 'getBuiltinModule' of undefined",
    ],
    ['require.constructor', 'require-constructor.js', `const p = require.constructor('return process')();${WITH_PROCESS('p')}`, "its init code threw: 'process' is not defined"],
    ['open.constructor', 'open-constructor.js', `const p = open.constructor('return process')();${WITH_PROCESS('p')}`, "its init code threw: 'process' is not defined"],
    [
      'a getter on the options, run as they are read',
      'getter.js',
      `export const options = { vus: 1, duration: '30s', get thresholds() { const p = __ENV.constructor.constructor('return process')();
         p.getBuiltinModule('node:fs').writeFileSync(${JSON.stringify(MARKER)}, 'escaped'); return { [p.env.HOSTILE_CANARY]: [] }; } };`,
      "its options are not plain data: 'process' is not defined",
    ],
    [
      'a Proxy as the options',
      'proxy.js',
      `export const options = new Proxy({}, {
         ownKeys() { const p = __ENV.constructor.constructor('return process')(); p.getBuiltinModule('node:fs').writeFileSync(${JSON.stringify(MARKER)}, 'escaped'); return [p.env.HOSTILE_CANARY]; },
         getOwnPropertyDescriptor() { return { value: 1, enumerable: true, configurable: true }; },
       });`,
      "its options are not plain data: 'process' is not defined",
    ],
    [
      'Symbol.toPrimitive on a URL k6/http reads',
      'to-primitive-url.js',
      `import http from 'k6/http';
       http.get({ [Symbol.toPrimitive]() { const p = __ENV.constructor.constructor('return process')(); p.getBuiltinModule('node:fs').writeFileSync(${JSON.stringify(MARKER)}, 'escaped'); return p.env.HOSTILE_CANARY; } });
       export const options = { vus: 1, duration: '30s' };`,
      "its init code threw: 'process' is not defined",
    ],
    [
      'Symbol.toPrimitive on a thrown value, printed as the error',
      'to-primitive-throw.js',
      `throw { [Symbol.toPrimitive]() { const p = __ENV.constructor.constructor('return process')(); p.getBuiltinModule('node:fs').writeFileSync(${JSON.stringify(MARKER)}, 'escaped'); return p.env.HOSTILE_CANARY; } };`,
      'its init code threw: a value that cannot be printed',
    ],
    [
      "import('node:fs')",
      'import-fs.js',
      "import('node:fs').then((fs) => fs.writeFileSync('x', ''));\nexport const options = {};",
      'it does not compile: Could not resolve "node:fs" (line 1)',
    ],
    [
      "require('child_process')",
      'require-cp.js',
      "require('child_process').execSync('true');\nexport const options = {};",
      'it does not compile: Could not resolve "child_process" (line 1)',
    ],
  ])('%s: exit 2, nothing escapes', async (_, name, code, problem) => {
    const file = script(name, code);
    expectRefused(await lint(file), file, problem);
  });

  it('a module named at run time (import(name), an indirect require) is an inert stand-in: a clean lint', async () => {
    const file = script(
      'indirect.js',
      `const name = ['child', 'process'].join('_');
       import(name).then((cp) => cp.execSync(${JSON.stringify(`touch ${MARKER}`)}));
       const req = require;
       req(name).execSync(${JSON.stringify(`touch ${MARKER}`)});
       req('fs').writeFileSync(${JSON.stringify(MARKER)}, 'escaped');
       export const options = { vus: 1, duration: '30s' };`,
    );
    const run = await lint(file);
    expect(run.stdout).toContain('| **INVALID** | coordinated-omission | closed-loop load: vus and duration (k6 runs constant-vus)');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(1);
    expectContained(run);
  });

  it('prototype pollution stays in the sandbox: the flags are those of the same options unpolluted', async () => {
    const options = `{"vus": 10, "duration": "30s", "__proto__": {"thresholds": {"http_req_failed": ["rate<0.01"]}}}`;
    const polluted = script(
      'pollute.js',
      `__ENV.constructor.prototype.thresholds = { http_req_failed: ['rate<0.01'], http_req_duration: ['p(99)<100'] };
       Object.prototype.thresholds = { http_req_failed: ['rate<0.01'] };
       Object.prototype.scenarios = { sneaky: { executor: 'constant-arrival-rate', rate: 1, duration: '1m', preAllocatedVUs: 1 } };
       export const options = JSON.parse('${options}');`,
    );
    const honest = script('honest.js', "export const options = { vus: 10, duration: '30s' };");
    const flagsOf = (run: CliResult) => run.stdout.split('\n').slice(1).join('\n');
    const [pollutedRun, honestRun] = [await lint(polluted), await lint(honest)];
    expect(flagsOf(pollutedRun)).toBe(flagsOf(honestRun));
    expect(pollutedRun.stdout).toContain('| warn        | no-thresholds ');
    expect(pollutedRun.stdout).toContain('| warn        | error-rate-ignored ');
    expect(pollutedRun.status).toBe(1);
    expectContained(pollutedRun);
  });
});

describe('files a k6 script reaches', () => {
  const secret = join(dir, 'secret.txt');
  writeFileSync(secret, CANARY);
  const roots = `(${scripts}, ${realpathSync(repoRoot)})`;

  it('open() of a file outside its folder and the working directory is refused, by path or through a link', async () => {
    const byPath = script('open-outside.js', "export const options = { scenarios: { [open('../secret.txt')]: { executor: 'constant-vus' } } };");
    expectRefused(await lint(byPath), byPath, `its init code threw: ${secret}: outside the folders a k6 script may read ${roots}`);
    symlinkSync(secret, join(scripts, 'sub', 'link.txt'));
    const byLink = script('open-link.js', "export const options = { scenarios: { [open('./sub/link.txt')]: { executor: 'constant-vus' } } };");
    expectRefused(await lint(byLink), byLink, `its init code threw: ${join(scripts, 'sub', 'link.txt')}: outside the folders a k6 script may read ${roots}`);
  });

  it('an import from outside does not compile', async () => {
    writeFileSync(join(dir, 'outside.json'), JSON.stringify({ name: CANARY }));
    const file = script('import-outside.js', "import o from '../outside.json';\nexport const options = { scenarios: { [o.name]: { executor: 'constant-vus' } } };");
    expectRefused(await lint(file), file, `it does not compile: ${join(dir, 'outside.json')}: outside the folders a k6 script may read ${roots} (line 1)`);
  });

  it('open() of a FIFO beside it is refused at once, without blocking', async () => {
    execFileSync('mkfifo', [join(scripts, 'fifo')]);
    const file = script('open-fifo.js', "open('./fifo');\nexport const options = {};");
    expectRefused(await lint(file), file, `its init code threw: ${join(scripts, 'fifo')}: a FIFO (named pipe), not a regular file`);
  });

  it('open() beside it still reads, as text and as bytes', async () => {
    writeFileSync(join(scripts, 'sub', 'rates.json'), JSON.stringify({ rate: 30_000 }));
    writeFileSync(join(scripts, 'sub', 'three.bin'), Buffer.from([1, 2, 3]));
    const file = script(
      'open-beside.js',
      `const { rate } = JSON.parse(open('./sub/rates.json'));
       const vus = new Uint8Array(open('./sub/three.bin', 'b')).length;
       export const options = { scenarios: { a: { executor: 'constant-arrival-rate', rate, duration: '1m', preAllocatedVUs: vus } }, thresholds: { http_req_failed: ['rate<0.001'] } };`,
    );
    const run = await lint(file);
    expect(run.stdout).toContain('peak arrival rate 30,000/s from one k6 instance');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});

describe('scripts that never end or never stop allocating', () => {
  it('an endless loop, even one that catches, ends exit 2 at the time limit', { timeout: 120_000 }, async () => {
    const file = script('loop.js', 'for (;;) { try { for (;;) {} } catch {} }\nexport const options = {};');
    expectRefused(await lint(file, 100_000), file, "its init code ran for more than 10 s, the sandbox's time limit (an endless loop?)");
  });

  it('a getter that never returns ends exit 2 at the time limit', { timeout: 120_000 }, async () => {
    const file = script('getter-loop.js', 'export const options = { get vus() { for (;;) {} } };');
    expectRefused(await lint(file, 100_000), file, "its init code ran for more than 10 s, the sandbox's time limit (an endless loop?)");
  });

  it.each([
    ['an array that grows without bound', "const a = []; for (;;) a.push('x'.repeat(100000) + a.length);"],
    ['one huge allocation', 'const b = new ArrayBuffer(1e9);'],
  ])('%s ends exit 2 at the memory limit, the process well under 256 MB', async (_, code) => {
    const rss = join(dir, 'peak-rss');
    const preload = join(dir, 'peak-rss.mjs');
    // The CLI's own peak resident memory, written as it exits.
    writeFileSync(preload, `import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => writeFileSync(${JSON.stringify(rss)}, String(process.resourceUsage().maxRSS)));\n`);
    const file = script('bomb.js', `${code}\nexport const options = {};`);
    expectRefused(await lint(file, undefined, { NODE_OPTIONS: `--import=${preload}` }), file, "its init code used more than 64 MiB, the sandbox's memory limit");
    expect(Number(readFileSync(rss, 'utf8')) * 1024).toBeLessThan(256 * 1024 * 1024);
  });

  it('unbounded recursion ends exit 2 at the stack limit', async () => {
    const file = script('recurse.js', 'function down() { return down() + 1; }\ndown();\nexport const options = {};');
    expectRefused(await lint(file), file, 'its init code threw: stack overflow');
  });
});

describe('scripts that do not compile', () => {
  it('a syntax error names the script and its line', async () => {
    const file = script('syntax.js', "export const options = {\n  vus: 1,\n  duration: '30s' 'x',\n};\n");
    expectRefused(await lint(file), file, 'it does not compile: Expected "}" but found "\'x\'" (line 3)');
  });

  it('a syntax error in an imported file names that file beside the script, and its line', async () => {
    writeFileSync(join(scripts, 'sub', 'broken.js'), 'export const x = 1;\nexport const y = ;\n');
    const file = script('imports-broken.js', "import { x } from './sub/broken.js';\nexport const options = { vus: x };\n");
    expectRefused(await lint(file), file, 'it does not compile: Unexpected ";" (sub/broken.js, line 2)');
  });
});
