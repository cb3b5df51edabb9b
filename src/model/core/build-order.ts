import type { ComponentKind } from './wiring.ts';

/**
 * The order kinds are built in: each after the kinds it declares in `after`, and among the kinds
 * ready, the earliest in `tieBreak` (kinds it leaves out come after, in the order given).
 * @throws Error (a model bug) when some kinds wait for each other, or for a kind not given
 */
export function buildOrder(kinds: readonly ComponentKind[], tieBreak: readonly ComponentKind[]): ComponentKind[] {
  const rank = (kind: ComponentKind) => (tieBreak.includes(kind) ? tieBreak.indexOf(kind) : tieBreak.length + kinds.indexOf(kind));
  const waiting = [...kinds].sort((a, b) => rank(a) - rank(b));
  const built: ComponentKind[] = [];
  while (waiting.length > 0) {
    const next = waiting.findIndex((kind) => (kind.after ?? []).every((before) => built.includes(before)));
    if (next < 0) throw new Error(`model bug: no build order for ${waiting.map((k) => k.section).join(', ')}: each waits for a kind not yet built`);
    built.push(...waiting.splice(next, 1));
  }
  return built;
}
