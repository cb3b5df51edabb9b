import type { ComparedSide, Comparison } from '../analysis/compare.ts';
import { markdownTable } from './table.ts';

/** The comparison as Markdown that pastes into a pull request: verdict first, what was compared, then one row per metric. */
export function renderComparison(c: Comparison): string {
  const sides = `baseline ${sideText(c.baseline)} · candidate ${sideText(c.candidate)}`;
  if (c.verdict === 'not comparable') {
    return [
      `# compare: not comparable (${c.notComparable.map((n) => `${n.side} ${n.verdict}${n.reasons.some((r) => r.startsWith('interrupted')) ? ', interrupted' : ''}`).join('; ')})`,
      '',
      sides,
      '',
      ...c.notComparable.map((n) => `- the ${n.side} \`${n.label}\` is no evidence: ${n.reasons.join('; ')}`),
      '',
      'Nothing was compared: figures of an INVALID or interrupted run show neither a regression nor its absence (exit 5). Compare two runs that ran to their end with a valid verdict.',
      '',
    ].join('\n');
  }
  const rows = c.rows.map((r) => [r.metric, r.baseline, r.candidate, r.change === 'regressed' ? '**REGRESSED**' : r.change, r.margin]);
  const regressions = c.rows.filter((r) => r.change === 'regressed').map((r) => r.metric);
  return [
    `# compare: ${c.regressed ? `REGRESSED (${regressions.join(', ')})` : 'no regression'}`,
    '',
    sides,
    '',
    markdownTable(['metric', 'baseline', 'candidate', 'change', 'noise margin'], rows),
    '',
    ...c.notes.map((n) => `- ${n}`),
    ...(c.notes.length > 0 ? [''] : []),
    'A difference counts only when it clears both margins: the 99% confidence intervals of the percentile from each histogram (binomial rank bounds) must not overlap, and it must exceed the baseline’s run-to-run noise at 99% (batch means over its measured intervals; for a qualification also the spread of its repeated rates).',
    '',
  ].join('\n');
}

function sideText(s: ComparedSide): string {
  const rate = s.offeredRps !== undefined ? `, ${Math.round(s.offeredRps)} rps offered` : '';
  const size = s.rates !== undefined ? `${s.rates} rates measured` : `${s.requests} requests`;
  return `\`${s.label}\` (${s.kind}, ${s.verdict}${rate}, ${size})`;
}
