import { parse, parseDocument } from 'yaml';
import { readInputText } from '../files/input-file.ts';
import { PROFILE_FILE, TOPOLOGY_FILE } from '../profile/file-bounds.ts';
import type { Profile } from '../profile/types.ts';

/**
 * The profile as one YAML file a pod can read alone: its own text, with a topology file it names
 * inlined (the resolved profile, and so its digest, is the same either way; comments of the
 * topology file are lost).
 */
export function selfContainedProfile(profile: Profile): string {
  const text = readInputText(profile.source.file, PROFILE_FILE);
  if (profile.source.topologyFile === undefined) return text;
  const doc = parseDocument(text);
  doc.set('topology', parse(readInputText(profile.source.topologyFile, TOPOLOGY_FILE)));
  return doc.toString({ lineWidth: 0 });
}
