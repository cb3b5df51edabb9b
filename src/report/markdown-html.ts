import MarkdownIt from 'markdown-it';

/*
 * The reports' Markdown as HTML, so report.html carries exactly the text of report.md: CommonMark
 * with GitHub's tables (markdown-it). Raw HTML in the Markdown is escaped, not passed through: a
 * report quotes what it was given (a profile's description, a command's output, a target's error),
 * and none of it may become markup. Our Markdown writes one fact per line, so a line break is kept.
 */
const markdown = new MarkdownIt({ html: false, breaks: true, linkify: false, typographer: false });

export function markdownToHtml(text: string): string {
  return markdown.render(text);
}

export function escapeHtml(text: string): string {
  return markdown.utils.escapeHtml(text);
}
