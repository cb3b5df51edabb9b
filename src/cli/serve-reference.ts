import { RunStartError } from '../driver/errors.ts';
import { parseDurationUs } from '../profile/units.ts';
import { canonicalHost, isLoopbackHost } from '../profile/target.ts';
import { DEFAULT_REFERENCE, startReferenceService } from '../serve/reference.ts';
import { allowedRemoteHosts, numberOption, optionError } from './options.ts';

export interface ServeArgs {
  service: 'reference';
  port: string;
  memcached: string;
  limit: string;
  poolMaxOpen: string;
  poolMaxIdle: string;
  checkoutTimeout: string;
  storeDelay: string;
  allowRemote?: string[] | undefined;
}

/** The reference service's settings from its options; bad values are bad input (exit 2), before anything listens. */
function serveSettings(args: ServeArgs) {
  const memcached = /^([^:\s]+|\[[^\]\s]+\]):(\d+)$/.exec(args.memcached);
  if (!memcached) throw optionError('--memcached', `expected host:port, got ${JSON.stringify(args.memcached)}`, 'e.g. --memcached 127.0.0.1:11211');
  const host = memcached[1]!.replace(/^\[|\]$/g, '');
  const memcachedPort = numberOption('--memcached', memcached[2]!, { min: 1, max: 65_535, integer: true, example: '127.0.0.1:11211' });
  const allowed = new Set(allowedRemoteHosts(args.allowRemote, process.env.STAMPEDE_ALLOW_REMOTE).map(canonicalHost));
  if (!isLoopbackHost(host) && !allowed.has(canonicalHost(host)))
    throw optionError('--memcached', `${host} is not a loopback host`, `to use it on purpose: --allow-remote ${host}, or STAMPEDE_ALLOW_REMOTE=${host}`);
  const limit = args.limit === 'inf' ? Number.POSITIVE_INFINITY : numberOption('--limit', args.limit, { min: 1, integer: true, example: '50 or inf' });
  const checkoutUs = parseDurationUs(args.checkoutTimeout);
  if (checkoutUs === undefined || checkoutUs === 0) throw optionError('--checkout-timeout', `expected a duration > 0, got ${JSON.stringify(args.checkoutTimeout)}`, 'e.g. 100ms');
  const storeUs = parseDurationUs(args.storeDelay);
  if (storeUs === undefined) throw optionError('--store-delay', `expected a duration, got ${JSON.stringify(args.storeDelay)}`, 'e.g. 1ms');
  return {
    ...DEFAULT_REFERENCE,
    port: numberOption('--port', args.port, { min: 0, max: 65_535, integer: true, example: '8080' }),
    memcached: { host, port: memcachedPort },
    limit,
    pool: {
      ...DEFAULT_REFERENCE.pool,
      maxOpen: numberOption('--pool-max-open', args.poolMaxOpen, { min: 1, max: 100_000, integer: true, example: '512' }),
      maxIdle: numberOption('--pool-max-idle', args.poolMaxIdle, { min: 0, max: 100_000, integer: true, example: '100' }),
      checkoutTimeoutMs: checkoutUs / 1000,
    },
    storeDelayMs: storeUs / 1000,
  };
}

/** Starts the reference service, prints where it listens, and runs until SIGINT/SIGTERM (exit 0). */
export async function serveReference(args: ServeArgs): Promise<number> {
  const settings = serveSettings(args);
  let service: Awaited<ReturnType<typeof startReferenceService>>;
  try {
    service = await startReferenceService(settings);
  } catch (error) {
    throw new RunStartError(`cannot listen on 127.0.0.1:${settings.port}: ${(error as Error).message}`);
  }
  process.stdout.write(`reference service on ${service.url} (limit ${args.limit}, memcached ${args.memcached}); GET /stats for its connections\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await service.close();
  return 0;
}
