import { Worker } from 'node:worker_threads';

const BOOTSTRAP = new URL('./tsx-bootstrap.mjs', import.meta.url);

/**
 * The worker module `relative` (written with its .ts name) next to the module at `base`
 * (import.meta.url): the .ts file when running from source under tsx, the .js file when `base` is
 * itself compiled JavaScript (dist/).
 */
export function workerModule(relative: string, base: string): URL {
  const url = new URL(relative, base);
  if (new URL(base).pathname.endsWith('.js')) url.pathname = url.pathname.replace(/\.ts$/, '.js');
  return url;
}

/**
 * A worker thread and its replies: messages are kept until someone waits for them, and a thread
 * that fails or exits fails every wait, so nobody waits for a dead thread.
 */
export class WorkerThread<Reply> {
  private readonly worker: Worker;
  private readonly inbox: Reply[] = [];
  private readonly waiters: { accept: (reply: Reply) => boolean; resolve: (reply: Reply) => void; reject: (error: Error) => void }[] = [];
  private failure: Error | undefined;
  private terminating = false;

  /** Starts `module` (from workerModule) with `workerData`; `name` labels its errors ("worker 2"). */
  constructor(
    module: URL,
    readonly name: string,
    workerData?: unknown,
  ) {
    // TypeScript needs the tsx loader registered inside the thread first; compiled JavaScript runs as is.
    this.worker = module.pathname.endsWith('.ts') ? new Worker(BOOTSTRAP, { workerData, argv: [module.href] }) : new Worker(module, { workerData });
    this.worker.on('message', (reply: Reply) => this.deliver(reply));
    this.worker.once('error', (error) => this.fail(new Error(`${name}: ${error.message}`)));
    this.worker.once('exit', (code) => this.fail(new Error(`${name} exited (${code}) before replying`)));
  }

  post(message: unknown): void {
    this.worker.postMessage(message);
  }

  /** The first reply (already received or still to come) that `accept` takes; rejects if the thread fails first. */
  next<R extends Reply>(accept: (reply: Reply) => reply is R): Promise<R>;
  next(accept: (reply: Reply) => boolean): Promise<Reply>;
  next(accept: (reply: Reply) => boolean): Promise<Reply> {
    const i = this.inbox.findIndex(accept);
    if (i >= 0) return Promise.resolve(this.inbox.splice(i, 1)[0]!);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiters.push({ accept, resolve, reject }));
  }

  /** Stops the thread; waits still pending are rejected. */
  async terminate(): Promise<void> {
    this.terminating = true;
    await this.worker.terminate();
    this.fail(new Error(`${this.name} was terminated`));
  }

  private deliver(reply: Reply): void {
    const i = this.waiters.findIndex((w) => w.accept(reply));
    if (i < 0) this.inbox.push(reply);
    else this.waiters.splice(i, 1)[0]!.resolve(reply);
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = this.terminating ? new Error(`${this.name} was terminated`) : error;
    for (const w of this.waiters.splice(0)) w.reject(this.failure);
  }
}
