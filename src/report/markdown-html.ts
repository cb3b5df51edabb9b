/**
 * The small Markdown subset our reports use (headings, bullet lists, pipe tables, paragraphs,
 * **bold**, `code`) as HTML, so report.html carries exactly the text of report.md.
 */
export function markdownToHtml(markdown: string): string {
  const out: string[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
    } else if (/^#{1,4} /.test(line)) {
      const level = line.indexOf(' ');
      out.push(`<h${level}>${inline(line.slice(level + 1))}</h${level}>`);
      i++;
    } else if (line.startsWith('- ')) {
      const items: string[] = [];
      for (; i < lines.length && lines[i]!.startsWith('- '); i++) items.push(`<li>${inline(lines[i]!.slice(2))}</li>`);
      out.push(`<ul>${items.join('')}</ul>`);
    } else if (line.startsWith('|')) {
      const rows: string[] = [];
      for (; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(lines[i]!);
      out.push(table(rows));
    } else {
      const para: string[] = [];
      for (; i < lines.length && lines[i]!.trim() !== '' && !/^(#{1,4} |- |\|)/.test(lines[i]!); i++) para.push(lines[i]!);
      // Our Markdown writes one fact per line; keep the lines apart.
      out.push(`<p>${para.map(inline).join('<br>')}</p>`);
    }
  }
  return out.join('\n');
}

function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

function table(rows: string[]): string {
  const [header, rule, ...body] = rows;
  const align = cells(rule ?? '').map((c) => (c.endsWith(':') ? ' class="num"' : ''));
  const head = cells(header ?? '')
    .map((c, i) => `<th${align[i] ?? ''}>${inline(c)}</th>`)
    .join('');
  const trs = body.map(
    (r) =>
      `<tr>${cells(r)
        .map((c, i) => `<td${align[i] ?? ''}>${inline(c)}</td>`)
        .join('')}</tr>`,
  );
  return `<table><thead><tr>${head}</tr></thead><tbody>${trs.join('')}</tbody></table>`;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function inline(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
}
