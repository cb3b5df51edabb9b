import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'undici';

/** Debian's chromium (scripts/test-deps.sh installs it). */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const hasChromium = () => existsSync(CHROMIUM);

export interface PageVisit {
  /** Console errors, uncaught exceptions and browser log errors, as text. */
  errors: string[];
  /** Every URL the page requested (the page itself included). */
  requests: string[];
  /** Whatever `evaluate` returned. */
  value: unknown;
  /** PNG of the full page when asked for. */
  screenshot?: Buffer;
}

/**
 * Opens a page in real headless Chromium over the DevTools protocol (no Playwright): collects
 * console errors, exceptions and requests, evaluates an expression once the page has loaded, and
 * optionally takes a full-page screenshot.
 */
export async function visit(url: string, options: { evaluate: string; screenshot?: { width: number; maxHeight?: number } }): Promise<PageVisit> {
  const profileDir = mkdtempSync(join(tmpdir(), 'stampede-chromium-'));
  const browser = spawn(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--no-first-run',
      '--hide-scrollbars',
      `--user-data-dir=${profileDir}`,
      '--remote-debugging-port=0',
      'about:blank',
    ],
    // Its own process group: Chromium's helper processes (zygote, renderers, crashpad) go with it.
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  try {
    const endpoint = await devToolsEndpoint(browser);
    const cdp = await Cdp.connect(endpoint);
    try {
      const { targetId } = (await cdp.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
      const { sessionId } = (await cdp.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
      const errors: string[] = [];
      const requests: string[] = [];
      cdp.on(sessionId, (method, params) => {
        const p = params as {
          type?: string;
          args?: { value?: unknown; description?: string }[];
          exceptionDetails?: { text?: string; exception?: { description?: string } };
          request?: { url?: string };
          entry?: { level?: string; text?: string; url?: string };
        };
        if (method === 'Runtime.consoleAPICalled' && (p.type === 'error' || p.type === 'assert'))
          errors.push(`console.${p.type}: ${p.args?.map((a: { value?: unknown; description?: string }) => a.value ?? a.description).join(' ')}`);
        if (method === 'Runtime.exceptionThrown') errors.push(`exception: ${p.exceptionDetails?.exception?.description ?? p.exceptionDetails?.text}`);
        if (method === 'Log.entryAdded' && p.entry?.level === 'error') errors.push(`log: ${p.entry.text} ${p.entry.url ?? ''}`);
        if (method === 'Network.requestWillBeSent') requests.push(p.request?.url ?? '');
      });
      for (const domain of ['Runtime', 'Log', 'Network', 'Page']) await cdp.send(`${domain}.enable`, {}, sessionId);
      if (options.screenshot)
        await cdp.send('Emulation.setDeviceMetricsOverride', { width: options.screenshot.width, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
      const loaded = cdp.once(sessionId, 'Page.loadEventFired');
      await cdp.send('Page.navigate', { url }, sessionId);
      await loaded;
      const evaluated = (await cdp.send('Runtime.evaluate', { expression: options.evaluate, returnByValue: true }, sessionId)) as { result: { value: unknown } };
      let screenshot: Buffer | undefined;
      if (options.screenshot) {
        const { cssContentSize } = (await cdp.send('Page.getLayoutMetrics', {}, sessionId)) as { cssContentSize: { width: number; height: number } };
        const clip = { x: 0, y: 0, width: options.screenshot.width, height: Math.min(options.screenshot.maxHeight ?? Infinity, Math.ceil(cssContentSize.height)), scale: 1 };
        const shot = (await cdp.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true, clip }, sessionId)) as { data: string };
        screenshot = Buffer.from(shot.data, 'base64');
      }
      await cdp.send('Browser.close', {}).catch(() => undefined);
      return { errors, requests, value: evaluated.result.value, ...(screenshot && { screenshot }) };
    } finally {
      cdp.close();
    }
  } finally {
    // Chromium and its helpers keep writing the profile until they have exited: kill the whole group
    // (a helper outliving the browser made the removal fail with ENOTEMPTY) and wait before removing it.
    const exited = browser.exitCode !== null ? Promise.resolve() : new Promise((resolve) => browser.once('exit', resolve));
    try {
      process.kill(-browser.pid!, 'SIGKILL');
    } catch {
      // The group is already gone.
    }
    await exited;
    rmSync(profileDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

function devToolsEndpoint(browser: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`chromium did not start: ${seen}`)), 30_000);
    browser.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    browser.on('exit', (code) => reject(new Error(`chromium exited (${code}): ${seen}`)));
  });
}

type Listener = (method: string, params: unknown) => void;

/** A minimal Chrome DevTools protocol client: commands with ids, events per session. */
class Cdp {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Map<string, Listener[]>();

  private constructor(private readonly socket: WebSocket) {
    // Chromium may hang up before it answers (Browser.close often does): a command then fails rather than waits forever.
    socket.addEventListener('close', () => {
      for (const waiter of this.pending.values()) waiter.reject(new Error('the DevTools connection closed'));
      this.pending.clear();
    });
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: unknown; sessionId?: string };
      if (message.id !== undefined) {
        const waiter = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) waiter?.reject(new Error(message.error.message));
        else waiter?.resolve(message.result);
      } else if (message.method) {
        for (const listener of this.listeners.get(message.sessionId ?? '') ?? []) listener(message.method, message.params);
      }
    });
  }

  static connect(url: string): Promise<Cdp> {
    const socket = new WebSocket(url);
    return new Promise((resolve, reject) => {
      socket.addEventListener('open', () => resolve(new Cdp(socket)));
      socket.addEventListener('error', () => reject(new Error(`cannot connect to ${url}`)));
    });
  }

  send(method: string, params: object, sessionId?: string): Promise<unknown> {
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ id, method, params, ...(sessionId && { sessionId }) }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  on(sessionId: string, listener: Listener): void {
    this.listeners.set(sessionId, [...(this.listeners.get(sessionId) ?? []), listener]);
  }

  once(sessionId: string, method: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.on(sessionId, (m, params) => m === method && resolve(params));
      this.socket.addEventListener('close', () => reject(new Error(`the DevTools connection closed before ${method}`)));
    });
  }

  close(): void {
    this.socket.close();
  }
}
