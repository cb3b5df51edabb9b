import { basename } from 'node:path';
import { PROFILE_NAME_MAX } from '../../profile/schema.ts';
import { roundTo } from '../../profile/units.ts';
import type { Plan } from '../../schedule/types.ts';
import type { TraceScan } from './scan.ts';

/*
 * The profile a replay runs under: the base profile's SLO, memcached settings, limits and topology,
 * with its traffic described as the replay sends it — the window's length and mean rate, its kinds
 * and clients by their shares, its keys and their fitted Zipf exponent, its value sizes — so that every file of the run folder (profile.json, the
 * plan in the report, the realism flags) speaks of the trace, not of the base's own traffic. They are
 * `--set` overrides on the base, so result.json's profile.overrides say what the replay changed.
 */

/** `--set` overrides that make the base profile describe the replay of `scan` at `speed`. */
export function replayOverrides(scan: TraceScan, plan: Plan, speed: number): string[] {
  const stem = basename(scan.file)
    .toLowerCase()
    .replace(/\.(csv|txt)?(\.zst)?$/, '');
  const name = `replay-${stem.replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '')}`.slice(0, PROFILE_NAME_MAX).replace(/-+$/, '');
  const durationUs = plan.durationUs;
  const rate = scan.requests / (durationUs / 1e6);
  const window = `${scan.startS}s..${scan.endS}s of the trace's clock`;
  const alpha = roundTo(scan.zipfAlpha ?? 0, 3);
  const set = (path: string, value: unknown) => `${path}=${JSON.stringify(value)}`;
  return [
    set('name', name),
    set('description', `Replay of ${basename(scan.file)}: ${scan.requests} requests, ${window}, at ${speed}× its pace.`),
    set('warmup', 0),
    set('duration', `${durationUs}us`),
    set('arrivals', 'constant'),
    set('phases', [{ type: 'steady', rate, duration: `${durationUs}us` }]),
    set('multipliers', []),
    set(
      'mix',
      scan.kinds.map((kind, i) => ({ kind, weight: scan.kindRequests[i]! })),
    ),
    set(
      'clients',
      scan.clients.map((c) => ({ name: c.name, share: c.requests })),
    ),
    set('keys', { count: scan.keyNames.length, prefix: '', popularity: alpha > 0 ? { type: 'zipf', s: alpha } : { type: 'uniform' } }),
    ...(scan.valueSizes === undefined ? [] : [set('valueSize', scan.valueSizes)]),
  ];
}
