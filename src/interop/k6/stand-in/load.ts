import { dirname, relative, resolve } from 'node:path';
import { InputFileError, readInputFile } from '../../../files/input-file.ts';
import { K6ScriptError } from '../errors.ts';
import { LENT_FILE, loadLent, readableRoots, readLent } from './files.ts';
import type { RecordedRequest, StandInClock } from './modules.ts';
import { type Answer, Sandbox, SandboxStopped } from './sandbox.ts';

/** A k6 script evaluated in the sandbox: its exports, and what it asked k6/http to send. */
export interface LoadedScript {
  /**
   * The script's exports as the host holds them: `options` as plain data copied out of the
   * sandbox, and each exported function as a call into it (at `clock`, recording into `requests`).
   */
  exports: Record<string, unknown>;
  /** Every request the script made so far (init code and the functions called since). */
  requests: RecordedRequest[];
  /** The clock k6/execution reads: move it before calling an exported function. */
  clock: StandInClock;
  /** Frees the script's sandbox; its functions may not be called after. */
  dispose(): void;
}

/**
 * Compiles a k6 script (JavaScript or TypeScript, with its local imports; k6 too compiles
 * TypeScript with esbuild) and runs its init code in a sandbox (QuickJS in WebAssembly) whose
 * `require` gives the stand-in k6 modules: no host object, no Node built-in, no network, and
 * files only through open() and imports, each under the script's folder or one of `roots`.
 * `env` is `__ENV`.
 * @throws K6ScriptError when the script does not compile, its init code throws, or it passes the sandbox's time or memory limit
 */
export async function loadK6Script(file: string, env: Record<string, string> = {}, roots: string[] = []): Promise<LoadedScript> {
  checkReadable(file);
  const readable = readableRoots(file, roots);
  const code = await compile(file, readable);
  const sandbox = await Sandbox.open({
    env,
    readFile: (path, binary) => {
      const bytes = readLent(resolve(dirname(file), path), readable);
      return binary ? new Uint8Array(bytes).buffer : bytes.toString('utf8');
    },
  });
  let init: Answer;
  try {
    init = sandbox.init(code, file);
  } catch (error) {
    sandbox.dispose();
    throw scriptError(file, 'its init code', error);
  }
  if (typeof init.unreadable === 'string') {
    sandbox.dispose();
    throw new K6ScriptError(file, `its options are not plain data: ${init.unreadable}`);
  }
  const requests = recorded(file, init);
  const clock: StandInClock = { vu: 1, elapsedMs: 0, scenario: 'default', iteration: 0 };
  const exports: Record<string, unknown> = { options: init.options };
  for (const name of functionNames(init)) {
    exports[name] = () => {
      let answer: Answer;
      try {
        answer = sandbox.call(name, clock);
      } catch (error) {
        throw scriptError(file, `its function ${name}()`, error);
      }
      for (const request of recorded(file, answer)) requests.push(request);
    };
  }
  return { exports, requests, clock, dispose: () => sandbox.dispose() };
}

/** The script itself, before esbuild, which would say only that it cannot resolve a missing one. */
function checkReadable(file: string): void {
  try {
    readInputFile(file, LENT_FILE);
  } catch (error) {
    if (error instanceof InputFileError) throw new K6ScriptError(file, error.reason);
    throw error;
  }
}

/** A sandbox's stop as the script's error (bad input), naming what ran: "its init code ran for more than 10 s…". */
function scriptError(file: string, what: string, error: unknown): unknown {
  return error instanceof SandboxStopped ? new K6ScriptError(file, `${what} ${error.message}`) : error;
}

/** The names of the script's exported functions (the default and the scenarios' exec functions); never `options`. */
function functionNames(init: Answer): string[] {
  const names = Array.isArray(init.functions) ? init.functions : [];
  return names.filter((name): name is string => typeof name === 'string' && name !== 'options');
}

/** The requests in an answer, checked to be requests: the stand-in that made them ran beside the script. */
function recorded(file: string, answer: Answer): RecordedRequest[] {
  const requests = Array.isArray(answer.requests) ? answer.requests : [];
  for (const r of requests)
    if (r === null || typeof r !== 'object' || typeof r.method !== 'string' || typeof r.url !== 'string')
      throw new K6ScriptError(file, 'its k6/http stand-in recorded something other than a request (the script changed it)');
  return requests as RecordedRequest[];
}

async function compile(file: string, readable: string[]): Promise<string> {
  const { build } = await import('esbuild');
  try {
    const out = await build({
      entryPoints: [file],
      bundle: true,
      write: false,
      format: 'cjs',
      platform: 'neutral',
      target: 'es2022',
      // k6's own modules and remote jslib imports come from the stand-in; local imports are bundled.
      external: ['k6', 'k6/*', 'http://*', 'https://*'],
      logLevel: 'silent',
      plugins: [
        {
          name: 'readable-files',
          setup(build) {
            build.onLoad({ filter: /.*/ }, (args) => loadLent(args.path, readable));
          },
        },
      ],
    });
    return out.outputFiles[0]!.text;
  } catch (error) {
    throw new K6ScriptError(file, `it does not compile: ${compileProblem(file, error)}`);
  }
}

/** esbuild's first error, with its line (and its file beside the script, when not the script itself). */
function compileProblem(file: string, error: unknown): string {
  const first = (error as { errors?: { text: string; location?: { file: string; line: number } | null }[] }).errors?.[0];
  if (!first) return error instanceof Error ? error.message : String(error);
  const at = first.location;
  if (!at) return first.text;
  const where = relative(dirname(resolve(file)), resolve(at.file));
  return `${first.text} (${resolve(at.file) === resolve(file) ? '' : `${where}, `}line ${at.line})`;
}
