import type { RealismFlag } from './types.ts';

export function flag(id: string, severity: RealismFlag['severity'], title: string, evidence: string, incident: string, fix: string): RealismFlag {
  return { id, severity, title, evidence, incident, fix };
}
