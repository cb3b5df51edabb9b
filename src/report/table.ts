/** A Markdown table whose columns are padded, so it reads the same in a terminal and in a pull request. */
export function markdownTable(header: string[], rows: string[][], align: ('l' | 'r')[] = []): string {
  // A pipe inside a cell would start a new column (`|z| > 2.33` in compare): escaped, as GitHub and markdownToHtml read it.
  const head = header.map(escapePipes);
  const body = rows.map((r) => r.map(escapePipes));
  // Loops, not Math.max(...rows): a table of many rows (a long history) would overflow the stack.
  const widths = head.map((h) => h.length);
  for (const r of body) widths.forEach((w, i) => (widths[i] = Math.max(w, (r[i] ?? '').length)));
  const pad = (cell: string, i: number) => (align[i] === 'r' ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!));
  const line = (cells: string[]) => `| ${cells.map(pad).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (align[i] === 'r' ? `${'-'.repeat(w + 1)}:` : `-${'-'.repeat(w + 1)}`)).join('|')}|`;
  return [line(head), rule, ...body.map(line)].join('\n');
}

function escapePipes(cell: string): string {
  return cell.replace(/(?<!\\)\|/g, '\\|');
}
