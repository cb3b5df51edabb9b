/**
 * Placeholders an HTTP request template may carry: the profile's checks reject any other, the HTTP
 * driver compiles these. In the path every substituted value is URL-encoded; in headers and the
 * body it is written as is (`keys:json` is already JSON).
 */
export const TEMPLATE_FIELDS = ['key', 'keys', 'keys:json', 'batch', 'value', 'valueSize', 'seq', 'client', 'kind'] as const;

export type TemplateField = (typeof TEMPLATE_FIELDS)[number];

/** `{{ name }}`; group 1 is the name. Global: use with matchAll or split. */
export const PLACEHOLDER = /\{\{\s*([^}\s]*)\s*\}\}/g;

export function isTemplateField(name: string): name is TemplateField {
  return (TEMPLATE_FIELDS as readonly string[]).includes(name);
}
