/**
 * A JSON-compatible value as a TypeScript literal a person can read: identifier keys unquoted,
 * single-quoted strings, an object or array of plain values on one line (a k6 stage
 * `{ target: 150, duration: '20s' }`), anything nested one member per line.
 */
export function literal(value: unknown, indent = ''): string {
  if (value === null || typeof value !== 'object') return scalar(value);
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
  return value === null || typeof value !== 'object';
}

function key(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : scalar(name);
}

function scalar(value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  return `'${JSON.stringify(value).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}
