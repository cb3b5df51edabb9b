import { dirname, extname, resolve } from 'node:path';
import { runInNewContext } from 'node:vm';
import type { Plugin } from 'esbuild';
import { type FileBound, InputFileError, MiB, readInputFile, readInputText } from '../../../files/input-file.ts';
import { K6ScriptError } from '../errors.ts';
import { permissive, type RecordedRequest, type StandInClock, standInModules } from './modules.ts';

/** A k6 script evaluated against the stand-in: its exports, and what it asked k6/http to send. */
export interface LoadedScript {
  /** The script's exports (options, default, the scenarios' exec functions). */
  exports: Record<string, unknown>;
  /** Every request the script made so far (init code and the functions called since). */
  requests: RecordedRequest[];
  /** The clock k6/execution reads: move it before calling an exported function. */
  clock: StandInClock;
}

/** Init code that runs longer than this is taken to loop: a script's init context only declares. */
const INIT_TIMEOUT_MS = 10_000;

/**
 * Compiles a k6 script (JavaScript or TypeScript, with its local imports; k6 too compiles
 * TypeScript with esbuild) and runs its init code in a fresh V8 context whose `require` gives the
 * stand-in k6 modules: no Node built-ins, no network, the script's own `open()` reading files
 * beside it as k6's does. `env` is `__ENV`.
 * @throws K6ScriptError when the script does not compile or its init code throws
 */
export async function loadK6Script(file: string, env: Record<string, string> = {}): Promise<LoadedScript> {
  checkReadable(file);
  const code = await compile(file);
  const requests: RecordedRequest[] = [];
  const clock: StandInClock = { vu: 1, elapsedMs: 0, scenario: 'default', iteration: 0 };
  const modules = standInModules(requests, clock);
  const module = { exports: {} as Record<string, unknown> };
  const context = {
    module,
    exports: module.exports,
    require: (name: string) => modules[name] ?? permissive(),
    __ENV: { ...env },
    __VU: 0,
    __ITER: 0,
    console: { log() {}, info() {}, warn() {}, error() {}, debug() {} },
    open: (path: string, mode?: string) => {
      const bytes = readInputFile(resolve(dirname(file), path), OPENED_FILE);
      return mode === 'b' ? bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) : bytes.toString('utf8');
    },
  };
  try {
    runInNewContext(code, context, { filename: file, timeout: INIT_TIMEOUT_MS });
  } catch (error) {
    // The error comes from the script's own realm, where `instanceof Error` is false.
    const message = (error as { message?: unknown } | null)?.message;
    throw new K6ScriptError(file, `its init code threw: ${typeof message === 'string' ? message : String(error)}`);
  }
  return { exports: module.exports, requests, clock };
}

/** A script a person wrote (bundled libraries included); what its init code open()s: a data file, read whole as k6 reads it. */
const SCRIPT_FILE: FileBound = { what: 'a k6 script', maxBytes: 16 * MiB };
const OPENED_FILE: FileBound = { what: 'a file a k6 script opens', maxBytes: 256 * MiB };

/** The script itself, before esbuild, which would say only that it cannot resolve a missing one. */
function checkReadable(file: string): void {
  try {
    readInputFile(file, SCRIPT_FILE);
  } catch (error) {
    if (error instanceof InputFileError) throw new K6ScriptError(file, error.reason);
    throw error;
  }
}

/** esbuild's loaders by extension, for the files the script and its imports are read from. */
const LOADERS: Readonly<Record<string, 'js' | 'ts' | 'json'>> = { js: 'js', mjs: 'js', cjs: 'js', ts: 'ts', mts: 'ts', cts: 'ts', json: 'json' };

async function compile(file: string): Promise<string> {
  const { build } = await import('esbuild');
  // The script and its local imports are read here, not by esbuild: a FIFO or a device is refused before it blocks the compile.
  let refused: InputFileError | undefined;
  const boundedFiles: Plugin = {
    name: 'bounded-files',
    setup(onBuild) {
      onBuild.onLoad({ filter: /\.(c|m)?(j|t)s$|\.json$/ }, (args) => {
        try {
          return { contents: readInputText(args.path, SCRIPT_FILE), loader: LOADERS[extname(args.path).slice(1)] ?? 'js' };
        } catch (error) {
          if (!(error instanceof InputFileError)) throw error;
          refused ??= error;
          return { errors: [{ text: error.message }] };
        }
      });
    },
  };
  try {
    const out = await build({
      entryPoints: [file],
      plugins: [boundedFiles],
      bundle: true,
      write: false,
      format: 'cjs',
      platform: 'neutral',
      target: 'es2022',
      // k6's own modules and remote jslib imports come from the stand-in; local imports are bundled.
      external: ['k6', 'k6/*', 'http://*', 'https://*'],
      logLevel: 'silent',
    });
    return out.outputFiles[0]!.text;
  } catch (error) {
    const errors = (error as { errors?: { text: string; location?: { line: number } | null }[] }).errors;
    const first = errors?.[0];
    if (refused) throw new K6ScriptError(file, refused.message);
    const detail = first ? `${first.text}${first.location ? ` (line ${first.location.line})` : ''}` : error instanceof Error ? error.message : String(error);
    throw new K6ScriptError(file, `it does not compile: ${detail}`);
  }
}
