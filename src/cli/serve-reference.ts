import { RunStartError } from '../driver/errors.ts';
import { parseDurationUs } from '../profile/units.ts';
import { DEFAULT_REFERENCE, startReferenceService } from '../serve/reference.ts';

export interface ServeArgs {
  service: 'reference';
  port: number;
  memcached: string;
  limit: string;
  poolMaxOpen: number;
  poolMaxIdle: number;
  checkoutTimeout: string;
  storeDelay: string;
}

/** Starts the reference service, prints where it listens, and runs until SIGINT/SIGTERM (exit 0). */
export async function serveReference(args: ServeArgs): Promise<number> {
  const memcached = /^([^:\s]+):(\d{1,5})$/.exec(args.memcached);
  if (!memcached) throw new RunStartError(`--memcached ${args.memcached}: expected host:port`);
  const limit = args.limit === 'inf' ? Number.POSITIVE_INFINITY : Number(args.limit);
  if (!(limit >= 1) || (Number.isFinite(limit) && !Number.isInteger(limit))) throw new RunStartError(`--limit ${args.limit}: expected a whole number ≥ 1 or inf`);
  const checkoutUs = parseDurationUs(args.checkoutTimeout);
  const storeUs = parseDurationUs(args.storeDelay);
  if (checkoutUs === undefined || storeUs === undefined) throw new RunStartError('--checkout-timeout and --store-delay take durations, e.g. 100ms');
  let service: Awaited<ReturnType<typeof startReferenceService>>;
  try {
    service = await startReferenceService({
      ...DEFAULT_REFERENCE,
      port: args.port,
      memcached: { host: memcached[1]!, port: Number(memcached[2]) },
      limit,
      pool: { ...DEFAULT_REFERENCE.pool, maxOpen: args.poolMaxOpen, maxIdle: args.poolMaxIdle, checkoutTimeoutMs: checkoutUs / 1000 },
      storeDelayMs: storeUs / 1000,
    });
  } catch (error) {
    throw new RunStartError(`cannot listen on 127.0.0.1:${args.port}: ${(error as Error).message}`);
  }
  process.stdout.write(`reference service on ${service.url} (limit ${args.limit}, memcached ${args.memcached}); GET /stats for its connections\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await service.close();
  return 0;
}
