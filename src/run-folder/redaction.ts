import { REDACTED } from '../profile/secrets.ts';

/*
 * The secrets of this process: every `${NAME}` value a run resolved and every sensitive header's
 * value (profile/secrets.ts). Every file the run-folder module writes — whole files through
 * writeFileAtomic, streamed logs through LogStream — passes through `redact`, and so does what the
 * CLI prints, so a new artifact cannot leak one by forgetting to ask. Each secret is replaced in
 * every form a writer may give it: as is, JSON-escaped, URL-encoded and HTML-escaped.
 */

/** Every written form of every secret, longest first (a secret containing another is replaced whole). */
let forms: string[] = [];

/** Adds secrets for the rest of the process; an empty one is ignored. */
export function addSecrets(values: Iterable<string>): void {
  const all = new Set(forms);
  for (const value of values) if (value !== '') for (const form of writtenForms(value)) all.add(form);
  forms = [...all].sort((a, b) => b.length - a.length);
}

/** `text` with every secret replaced by [redacted]; the text itself when the process has none. */
export function redact(text: string): string {
  if (forms.length === 0) return text;
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
  return out;
}

/** Whether any secret is registered (the terminal is wrapped only then). */
export function hasSecrets(): boolean {
  return forms.length > 0;
}

function writtenForms(value: string): string[] {
  const html = value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  return [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value), html];
}
