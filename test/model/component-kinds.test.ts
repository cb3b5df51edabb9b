import { describe, expect, it } from 'vitest';
import { BUILD_TIE_BREAK, COMPONENT_KINDS, GAUGE_ORDER } from '../../src/model/components/registry.ts';
import { buildOrder } from '../../src/model/core/build-order.ts';
import type { ComponentKind, Section } from '../../src/model/core/wiring.ts';
import { CALLED_SECTIONS } from '../../src/profile/topology/references.ts';

/*
 * Component kinds say what they are built after and what calls they accept; the registry turns the
 * first into the build order (handler ids, and so trace hashes, follow it), and the profile's
 * topology rules list the second.
 */

/** A kind that builds nothing, named by its section, built after `after`. */
function kind(section: string, after: ComponentKind[] = []): ComponentKind {
  return { section: section as Section, after, build: () => {} };
}

const sections = (kinds: readonly ComponentKind[]) => kinds.map((k) => k.section);

describe('build order', () => {
  it('is today’s: hosts, client groups, caches, databases, services, monitors', () => {
    expect(sections(buildOrder(COMPONENT_KINDS, BUILD_TIE_BREAK))).toEqual(['hosts', 'clientGroups', 'caches', 'databases', 'services', 'monitors']);
  });

  it('builds every kind after the kinds it looks up', () => {
    const order = buildOrder(COMPONENT_KINDS, BUILD_TIE_BREAK);
    for (const [i, k] of order.entries()) for (const before of k.after ?? []) expect(order.indexOf(before), `${k.section} after ${before.section}`).toBeLessThan(i);
    expect(COMPONENT_KINDS.some((k) => (k.after ?? []).length > 0)).toBe(true);
  });

  it('takes the tie-break among the kinds ready, whatever the registry order', () => {
    const a = kind('a');
    const b = kind('b');
    const c = kind('c', [a]);
    expect(sections(buildOrder([a, b, c], [c, b, a]))).toEqual(['b', 'a', 'c']);
    expect(sections(buildOrder([c, b, a], [a, b, c]))).toEqual(['a', 'b', 'c']);
  });

  it('puts what it declares before the tie-break, and kinds the tie-break leaves out last, in registry order', () => {
    const a = kind('a');
    const b = kind('b', [a]);
    const late = kind('late');
    const later = kind('later');
    expect(sections(buildOrder([later, b, a, late], [b, a]))).toEqual(['a', 'b', 'later', 'late']);
  });

  it('refuses kinds that wait for each other, or for a kind not registered', () => {
    const waitsForB: ComponentKind[] = [];
    const a = kind('a', waitsForB);
    const b = kind('b', [a]);
    waitsForB.push(b);
    expect(() => buildOrder([a, b], [a, b])).toThrow('model bug: no build order for a, b');
    expect(() => buildOrder([kind('c', [kind('unregistered')])], [])).toThrow('no build order for c');
  });
});

describe('gauge order', () => {
  it('lists every registered kind once, so none loses its gauges', () => {
    expect(new Set(GAUGE_ORDER).size).toBe(GAUGE_ORDER.length);
    expect(sections(GAUGE_ORDER).sort()).toEqual(sections(COMPONENT_KINDS).sort());
  });
});

describe('what component kinds accept', () => {
  it('is what the profile lets a service call name: every called section, and which answer a miss', () => {
    const called = COMPONENT_KINDS.filter((k) => k.accepts !== undefined);
    expect(sections(called).sort()).toEqual(CALLED_SECTIONS.map((c) => c.section).sort());
    for (const { section, answersMisses } of CALLED_SECTIONS) {
      const k = called.find((c) => c.section === section)!;
      expect(k.accepts, section).toEqual(answersMisses ? ['call', 'miss'] : ['call']);
    }
  });

  it('comes with the nodes a called component takes, and only a called kind routes by key', () => {
    for (const k of COMPONENT_KINDS) {
      expect(k.nodeSlots !== undefined, k.section).toBe(k.accepts !== undefined);
      if (k.keyed !== undefined) expect(k.accepts, k.section).toContain('call');
    }
    expect(sections(COMPONENT_KINDS.filter((k) => k.keyed !== undefined))).toEqual(['caches']);
  });
});
