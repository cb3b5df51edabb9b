import { z } from 'zod';
import { duration } from '../units.ts';
import { componentName } from './common.ts';

export const MonitorSchema = z
  .strictObject({
    cache: componentName.meta({ description: 'The cache whose shards it probes.' }),
    every: duration.prefault('1s').meta({ description: 'Probe period per shard.' }),
    connection: z.enum(['new', 'reuse']).default('new').meta({
      description:
        'What a probe goes through. new: a connection dialled for the probe and closed after it, as production health checks do — it competes for fds and the accept queue with every client, so a shard that serves its open connections but accepts no new ones fails. reuse: one long-lived connection, dialled again only after a failure — a shard stuck at its fd limit still answers it.',
    }),
    timeout: duration.prefault('500ms').meta({
      description:
        'A probe with no reply within this fails; its connection is closed (with reuse, the next probe dials a new one, and may not get an fd: "the monitor cannot connect").',
    }),
    failures: z.number().int().min(1).default(3).meta({ description: 'Consecutive failed probes that make the monitor restart the shard.' }),
    restartTime: duration.prefault('5s').meta({
      description: 'The restarted shard refuses connections this long, then comes back empty (a cold cache); every client connection to it is reset (a reconnect storm).',
    }),
  })
  .meta({
    description:
      'A health-check monitor (Twitter 2014-01): a probe (an op that touches no key) per shard every `every`, through a new connection or a reused one; after `failures` consecutive failures it restarts the shard.',
  });
export type Monitor = z.output<typeof MonitorSchema>;
