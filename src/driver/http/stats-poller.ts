import { Agent, get } from 'node:http';
import { Agent as TlsAgent, get as tlsGet } from 'node:https';
import type { ConnectionOptions } from 'node:tls';
import { defineGauge } from '../../recorder/gauges.ts';

/** One gauge per numeric field of the target's stats, keyed `target.<path>`. */
export const TARGET_STAT_GAUGE = defineGauge('target', 'count', 'target', "the target's own stats endpoint, one per numeric field");

/**
 * Polls the target's own stats endpoint (e.g. the reference service's GET /stats) on a connection
 * of its own, so the report can show the target's connection counts next to the latency they
 * caused. Numeric fields are flattened into gauges `target.<path>`; a failed poll keeps the last.
 */
export class StatsPoller {
  private readonly agent: Agent;
  private readonly get: typeof get;
  private latest: Record<string, number> = {};
  private last: unknown;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  polls = 0;
  failures = 0;

  constructor(
    private readonly url: URL,
    private readonly everyMs: number,
    /** An https:// target's TLS options (CA, client certificate, verification), as its requests use them. */
    tls?: ConnectionOptions,
  ) {
    this.agent = tls ? new TlsAgent({ ...tls, keepAlive: true, maxSockets: 1 }) : new Agent({ keepAlive: true, maxSockets: 1 });
    this.get = tls ? tlsGet : get;
  }

  start(): void {
    this.poll();
    this.timer = setInterval(() => this.poll(), this.everyMs);
  }

  gauges(into: Record<string, number>): void {
    Object.assign(into, this.latest);
  }

  /** The last stats document, as the target sent it. */
  async stop(): Promise<unknown> {
    if (this.timer) clearInterval(this.timer);
    await this.fetch().catch(() => undefined);
    this.agent.destroy();
    return this.last;
  }

  private poll(): void {
    if (this.polling) return;
    this.polling = true;
    this.fetch()
      .catch(() => this.failures++)
      .finally(() => (this.polling = false));
  }

  private fetch(): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = this.get(this.url, { agent: this.agent, timeout: 2000 }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => {
          try {
            this.last = JSON.parse(body);
            const flat: Record<string, number> = {};
            flatten(this.last, 'target', flat);
            this.latest = flat;
            this.polls++;
            resolve();
          } catch (error) {
            reject(error as Error);
          }
        });
      });
      req.on('timeout', () => req.destroy(new Error('stats poll timed out')));
      req.on('error', reject);
    });
  }
}

function flatten(value: unknown, prefix: string, into: Record<string, number>): void {
  if (typeof value === 'number' && Number.isFinite(value)) into[prefix] = value;
  else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, `${prefix}.${k}`, into);
  }
}
