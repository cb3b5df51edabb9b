import { readFileSync } from 'node:fs';
import { parse, parseDocument } from 'yaml';
import type { Profile } from '../profile/types.ts';

/**
 * The profile as one YAML file a pod can read alone: its own text, with a topology file it names
 * inlined (the resolved profile, and so its digest, is the same either way; comments of the
 * topology file are lost).
 */
export function selfContainedProfile(profile: Profile): string {
  const text = readFileSync(profile.source.file, 'utf8');
  if (profile.source.topologyFile === undefined) return text;
  const doc = parseDocument(text);
  doc.set('topology', parse(readFileSync(profile.source.topologyFile, 'utf8')));
  return doc.toString({ lineWidth: 0 });
}
