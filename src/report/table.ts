/** A Markdown table whose columns are padded, so it reads the same in a terminal and in a pull request. */
export function markdownTable(header: string[], rows: string[][], align: ('l' | 'r')[] = []): string {
  // Loops, not Math.max(...rows): a table of many rows (a long history) would overflow the stack.
  const widths = header.map((h) => h.length);
  for (const r of rows) widths.forEach((w, i) => (widths[i] = Math.max(w, (r[i] ?? '').length)));
  const pad = (cell: string, i: number) => (align[i] === 'r' ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!));
  const line = (cells: string[]) => `| ${cells.map(pad).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (align[i] === 'r' ? `${'-'.repeat(w + 1)}:` : `-${'-'.repeat(w + 1)}`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
