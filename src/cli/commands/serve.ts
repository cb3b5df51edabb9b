import type { Argv } from 'yargs';
import { allowRemoteOption, type ArgsOf, type StampedeCommand } from '../command.ts';

const builder = (yargs: Argv) =>
  allowRemoteOption(yargs)
    .positional('service', { type: 'string', choices: ['reference'] as const, demandOption: true })
    .option('port', { type: 'string', default: '8080', describe: 'port on 127.0.0.1 (0 = any free port)' })
    .option('memcached', { type: 'string', default: '127.0.0.1:11211', describe: 'memcached host:port (loopback unless --allow-remote names the host)' })
    .option('limit', { type: 'string', default: 'inf', describe: 'lookups of one request in flight at once (errgroup.SetLimit), or inf' })
    .option('pool-max-open', { type: 'string', default: '512', describe: 'memcached connections open at most' })
    .option('pool-max-idle', { type: 'string', default: '100', describe: 'idle memcached connections kept; the rest close after use' })
    .option('checkout-timeout', { type: 'string', default: '100ms', describe: 'how long a lookup waits for a memcached connection' })
    .option('store-delay', { type: 'string', default: '1ms', describe: 'backing-store latency per missed URI' });

/** `stampede serve reference`: runs the reference service until SIGINT/SIGTERM. */
export const serve: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'serve <service>',
  describe: 'run a real target on 127.0.0.1: `reference` is a getPostRecord batch lookup over memcached',
  example: ['stampede serve reference --port 8080 --limit 50', 'the reference service on 127.0.0.1:8080'],
  builder,
  ownsSignals: true,
  async run(args) {
    const { serveReference } = await import('../serve-reference.ts');
    return serveReference(args);
  },
};
