import { readFileSync } from 'node:fs';
import releaseSyncModule from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
  type VmCallResult,
} from 'quickjs-emscripten-core';

/*
 * A k6 script's code runs in QuickJS compiled to WebAssembly: a separate engine whose objects are
 * bytes in its own linear memory, so no host object, file, socket or process is reachable from it.
 * What crosses back is text only (a JSON string the stand-in makes); what crosses in is strings,
 * numbers, and `readFile` behind open().
 */

/** Node's global, which TypeScript's Node typings declare as types only. */
declare const WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => ReturnType<QuickJSWASMModule['getWasmMemory']> };

// The package's typings are CommonJS (index.d.ts) while Node loads its ES module (index.mjs), whose default export is the variant itself.
const releaseSync = releaseSyncModule as unknown as QuickJSSyncVariant;

/**
 * The sandbox's whole memory. The prebuilt engine's own limit (setMemoryLimit) counts allocations,
 * not bytes, so it never stops big strings or arrays (quickjs-emscripten#255, #271); a capped
 * WebAssembly.Memory does: growth past it fails, and QuickJS throws its out-of-memory error.
 */
export const SANDBOX_MEMORY_BYTES = 64 * 1024 * 1024;
/** How long init code, or one call of an exported function, may run. */
export const SANDBOX_TIME_MS = 10_000;
const WASM_PAGE = 65_536;
/** The engine's prebuilt initial memory (16 MiB): the imported memory may not start smaller. */
const INITIAL_PAGES = 256;
/**
 * QuickJS's own stack check. Its frames also use Node's native stack, which would overflow first
 * past about 400 KiB and take the engine with it: 256 KiB is about 1,500 nested JavaScript calls.
 */
const STACK_BYTES = 256 * 1024;

/**
 * Why a script did not answer, as a predicate of what ran: "threw: …", "ran for more than 10 s…",
 * "used more than 64 MiB…", "does not compile in the sandbox: …", "stopped the sandbox engine (…)".
 */
export class SandboxStopped extends Error {
  override readonly name = 'SandboxStopped';
}

/** The stand-in's answer: JSON data, copied out of the sandbox as text and parsed here. */
export type Answer = Record<string, unknown>;

/** What the host lends the script: its environment as `__ENV`, and the files open() may read. */
export interface SandboxHost {
  env: Record<string, string>;
  /** open(): the file's text, or its bytes for mode 'b'. @throws Error whose message the script sees */
  readFile(path: string, binary: boolean): string | ArrayBuffer;
}

let engine: Promise<QuickJSWASMModule> | undefined;

/** The engine, instantiated on first use and then shared by every sandbox of the process. */
function quickjs(): Promise<QuickJSWASMModule> {
  engine ??= newQuickJSWASMModuleFromVariant(
    newVariant(releaseSync, { wasmMemory: new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: SANDBOX_MEMORY_BYTES / WASM_PAGE }) }),
  );
  return engine;
}

let standInSource: string | undefined;

/** The stand-in k6 modules and the harness, evaluated inside each sandbox first. */
function standIn(): string {
  standInSource ??= readFileSync(new URL('./modules.sandbox.js', import.meta.url), 'utf8');
  return standInSource;
}

/** One script's engine state: its own QuickJS runtime, the time limit armed around every entry. */
export class Sandbox {
  private deadline = 0;
  private timedOut = false;
  private broken = false;
  /** Each exported function's name, made once: a replay calls the same few functions thousands of times. */
  private readonly names = new Map<string, QuickJSHandle>();

  private constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly context: QuickJSContext,
    private readonly harness: { init: QuickJSHandle; call: QuickJSHandle },
  ) {}

  static async open(host: SandboxHost): Promise<Sandbox> {
    const runtime = (await quickjs()).newRuntime();
    runtime.setMaxStackSize(STACK_BYTES);
    const context = runtime.newContext();
    const prelude = context.unwrapResult(context.evalCode(standIn(), 'stampede:k6-stand-in.js', { type: 'global', strict: true }));
    const readFile = context.newFunction('readFile', (path, binary) => lend(context, host, path, binary));
    const env = context.newString(JSON.stringify(host.env));
    const harness = context.unwrapResult(context.callFunction(prelude, context.undefined, readFile, env));
    const sandbox = new Sandbox(runtime, context, { init: context.getProp(harness, 'init'), call: context.getProp(harness, 'call') });
    for (const handle of [prelude, readFile, env, harness]) handle.dispose();
    runtime.setInterruptHandler(() => sandbox.pastDeadline());
    return sandbox;
  }

  /** Runs the bundled script (CommonJS) as init code: its options, function names and requests. @throws SandboxStopped */
  init(code: string, filename: string): Answer {
    return this.guarded(() => {
      // On the first line, so the bundle's line numbers are the ones QuickJS reports.
      const compiled = this.context.evalCode(`(function (module, exports, require) {${code}\n})`, filename, { type: 'global' });
      if (compiled.error) throw this.stopped(compiled.error, 'does not compile in the sandbox: ');
      const result = this.context.callFunction(this.harness.init, this.context.undefined, compiled.value);
      compiled.value.dispose();
      return result;
    });
  }

  /** Calls an exported function at the given clock: the requests it made. @throws SandboxStopped */
  call(name: string, clock: { vu: number; elapsedMs: number; scenario: string; iteration: number }): Answer {
    return this.guarded(() => {
      const { context } = this;
      const clockArgs = [context.newNumber(clock.vu), context.newNumber(clock.elapsedMs), context.newString(clock.scenario), context.newNumber(clock.iteration)];
      const result = context.callFunction(this.harness.call, context.undefined, this.nameHandle(name), ...clockArgs);
      for (const arg of clockArgs) arg.dispose();
      return result;
    });
  }

  dispose(): void {
    // A broken engine aborts on any further call, its runtime's disposal included: it is dropped whole.
    if (this.broken) return;
    this.harness.init.dispose();
    this.harness.call.dispose();
    for (const name of this.names.values()) name.dispose();
    this.context.dispose();
    this.runtime.dispose();
  }

  private nameHandle(name: string): QuickJSHandle {
    let handle = this.names.get(name);
    if (!handle) this.names.set(name, (handle = this.context.newString(name)));
    return handle;
  }

  private pastDeadline(): boolean {
    if (performance.now() <= this.deadline) return false;
    this.timedOut = true;
    return true;
  }

  /** Runs `enter` (and the promise jobs it queued) under the time limit; the answer it returned. */
  private guarded(enter: () => VmCallResult<QuickJSHandle>): Answer {
    if (this.broken) throw new SandboxStopped('did not run: an earlier script broke the sandbox engine');
    this.deadline = performance.now() + SANDBOX_TIME_MS;
    this.timedOut = false;
    let text: string | undefined;
    try {
      const result = enter();
      if (result.error) throw this.stopped(result.error);
      text = this.context.typeof(result.value) === 'string' ? this.context.getString(result.value) : undefined;
      result.value.dispose();
      this.runJobs();
    } catch (error) {
      if (error instanceof SandboxStopped) throw error;
      // Not the script's exception but the engine's (a native stack overflow, an abort): nothing of it can be trusted.
      this.broken = true;
      engine = undefined;
      throw new SandboxStopped(`stopped the sandbox engine (${error instanceof Error ? error.message : String(error)})`);
    }
    return answer(text);
  }

  /** Promise jobs the call queued (an async function's awaits), under the same deadline; their rejections are the script's own. */
  private runJobs(): void {
    if (!this.runtime.hasPendingJob()) return;
    const jobs = this.runtime.executePendingJobs();
    if (jobs.error && this.timedOut) throw this.stopped(jobs.error);
    jobs.dispose();
  }

  /** Why the engine ended an entry the stand-in could not catch: the deadline, or the engine's own error. */
  private stopped(error: QuickJSHandle, prefix = 'threw: '): SandboxStopped {
    const message = this.messageOf(error);
    error.dispose();
    if (this.timedOut) return new SandboxStopped(`ran for more than ${SANDBOX_TIME_MS / 1000} s, the sandbox's time limit (an endless loop?)`);
    return new SandboxStopped(message === OUT_OF_MEMORY ? MEMORY_SPENT : `${prefix}${message}`);
  }

  /** An engine-made error's message (the stand-in catches everything the script throws itself). */
  private messageOf(error: QuickJSHandle): string {
    const message = this.context.getProp(error, 'message');
    const text = this.context.typeof(message) === 'string' ? this.context.getString(message) : this.context.typeof(error);
    message.dispose();
    return text;
  }
}

/** QuickJS's own message when an allocation fails. */
const OUT_OF_MEMORY = 'out of memory';
const MEMORY_SPENT = `used more than ${SANDBOX_MEMORY_BYTES / 1024 / 1024} MiB, the sandbox's memory limit`;

/** The stand-in's text as data: what the script threw is a stop; `__proto__` keys are dropped, so no answer can set a prototype. */
function answer(text: string | undefined): Answer {
  if (text === undefined) throw new SandboxStopped('answered with something other than text');
  const parsed: unknown = JSON.parse(text, (key, value) => (key === '__proto__' ? undefined : value));
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new SandboxStopped('answered with something other than an object');
  const threw = (parsed as Answer).threw;
  if (typeof threw === 'string') throw new SandboxStopped(threw === OUT_OF_MEMORY ? MEMORY_SPENT : `threw: ${threw}`);
  return parsed as Answer;
}

/** readFile inside the sandbox: a primitive path in, a string or an ArrayBuffer copy out. */
function lend(context: QuickJSContext, host: SandboxHost, path: QuickJSHandle | undefined, binary: QuickJSHandle | undefined): QuickJSHandle {
  if (path === undefined || context.typeof(path) !== 'string') throw new TypeError('open() takes a path');
  const contents = host.readFile(context.getString(path), binary !== undefined && context.typeof(binary) === 'boolean' && context.dump(binary) === true);
  return typeof contents === 'string' ? context.newString(contents) : context.newArrayBuffer(contents);
}
