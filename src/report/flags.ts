import type { RealismFlag } from '../analysis/realism/types.ts';
import { markdownTable } from './table.ts';

/** The realism flags as a Markdown section body: counts by severity, then one row per flag. */
export function flagsMarkdown(flags: readonly RealismFlag[]): string {
  if (flags.length === 0) return 'None: nothing in the setup departs from production as far as stampede can tell.';
  const counts = (['invalid', 'warn', 'info'] as const).map((s) => `${flags.filter((f) => f.severity === s).length} ${s}`).join(' · ');
  const rows = flags.map((f) => [f.severity === 'invalid' ? '**INVALID**' : f.severity, f.id, `${f.title}: ${f.evidence}`, f.incident, f.fix].map(escapeCell));
  return `${counts}\n\n${markdownTable(['severity', 'flag', 'evidence', 'echoes', 'fix'], rows)}`;
}

/** Pipes would end a Markdown table cell. */
export function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
