import type { FlagId, SeverityOf } from './registry.ts';
import type { RealismFlag } from './types.ts';

/** A flag of the registry at one of its severities: an id or a severity the registry does not list is a type error. */
export function flag<Id extends FlagId>(id: Id, severity: SeverityOf<Id>, title: string, evidence: string, incident: string, fix: string): RealismFlag {
  return { id, severity, title, evidence, incident, fix };
}
