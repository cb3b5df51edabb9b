import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunMetrics } from './exporter.ts';

export interface MetricsServer {
  /** Where Prometheus scrapes: http://host:port/metrics. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves the run's metrics at /metrics (Prometheus text format) until closed. Rejects with the listen error
 * (a port in use, an address this host does not have) before the run starts.
 */
export async function serveMetrics(metrics: RunMetrics, host: string, port: number): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '/').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('stampede serves /metrics\n');
      return;
    }
    metrics.text().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${error.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
