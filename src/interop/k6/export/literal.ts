import { SECRET_REFERENCE } from '../../../profile/secrets.ts';

/**
 * A template field holding `${NAME}`: the script reads NAME from k6's environment when it starts, as
 * stampede reads it when a run starts, so the value is never written into the script. `encode`: the
 * value is URL-encoded (a path), as stampede's driver encodes it.
 */
export class EnvString {
  constructor(
    readonly text: string,
    readonly encode: boolean,
  ) {}
}

/**
 * A JSON-compatible value as a TypeScript literal a person can read: identifier keys unquoted,
 * single-quoted strings, an object or array of plain values on one line (a k6 stage
 * `{ target: 150, duration: '20s' }`), anything nested one member per line. An EnvString is a
 * template literal reading `__ENV`.
 */
export function literal(value: unknown, indent = ''): string {
  if (value === null || typeof value !== 'object' || value instanceof EnvString) return scalar(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every(isScalar)) return `[${value.map((v) => literal(v)).join(', ')}]`;
    return `[\n${value.map((v) => `${inner}${literal(v, inner)},`).join('\n')}\n${indent}]`;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  if (entries.every(([, v]) => isScalar(v))) return `{ ${entries.map(([k, v]) => `${key(k)}: ${scalar(v)}`).join(', ')} }`;
  return `{\n${entries.map(([k, v]) => `${inner}${key(k)}: ${literal(v, inner)},`).join('\n')}\n${indent}}`;
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value !== 'object' || value instanceof EnvString;
}

function key(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : scalar(name);
}

function scalar(value: unknown): string {
  if (value instanceof EnvString) return templateLiteral(value);
  if (typeof value !== 'string') return JSON.stringify(value);
  return `'${JSON.stringify(value).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

/** `Bearer ${AUTH_TOKEN}` → `\`Bearer ${__ENV.AUTH_TOKEN}\``; the text around each reference escaped so it stays text. */
function templateLiteral(value: EnvString): string {
  // split with a capture group: text, name, text, name, …, text.
  const parts = value.text.split(new RegExp(SECRET_REFERENCE.source));
  const body = parts
    .map((part, i) => {
      if (i % 2 === 0) return JSON.stringify(part).slice(1, -1).replace(/`/g, '\\`').replace(/\$\{/g, '\\${');
      return value.encode ? `\${encodeURIComponent(__ENV.${part})}` : `\${__ENV.${part}}`;
    })
    .join('');
  return `\`${body}\``;
}
