import type { Comparison } from '../analysis/compare.ts';
import { markdownTable } from './table.ts';

/** The comparison as Markdown that pastes into a pull request: verdict first, then one row per metric. */
export function renderComparison(c: Comparison): string {
  const rows = c.rows.map((r) => [r.metric, r.baseline, r.candidate, r.change === 'regressed' ? '**REGRESSED**' : r.change, r.margin]);
  const regressions = c.rows.filter((r) => r.change === 'regressed').map((r) => r.metric);
  return [
    `# compare: ${c.regressed ? `REGRESSED (${regressions.join(', ')})` : 'no regression'}`,
    '',
    `baseline \`${c.baseline}\` · candidate \`${c.candidate}\``,
    '',
    markdownTable(['metric', 'baseline', 'candidate', 'change', 'noise margin'], rows),
    '',
    'Latency intervals are 99% confidence intervals of each percentile from the stored histograms (binomial rank bounds); a change counts only when the intervals do not overlap.',
    '',
  ].join('\n');
}
