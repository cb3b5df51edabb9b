import { isTemplateField, PLACEHOLDER, type TemplateField } from '../../profile/template-fields.ts';
import type { Keyspace, ScheduledRequest } from '../../schedule/types.ts';

/** A request template from the profile's `http.requests`, before compilation. */
export interface RequestTemplateSpec {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | undefined;
}

/** A literal, or a field filled per request (URL-encoded in a path). */
export type Part = string | { field: TemplateField; encode: boolean };

/** The names and sizes a template's fields are filled from; shared by the HTTP/1.1 and HTTP/2 templates. */
export interface FieldSource {
  keyspace: Keyspace;
  names: { clients: string[]; kinds: string[] };
  valueSlab: string;
}

/**
 * A compiled template: literal parts and fields. A template without placeholders is serialized
 * once into a Buffer and written as is for every request (the fast path of a fixed GET).
 */
export class RequestTemplate {
  readonly isHead: boolean;
  private readonly fixed: Buffer | undefined;
  private readonly headParts: Part[];
  private readonly bodyParts: Part[] | undefined;

  private readonly source: FieldSource;

  constructor(spec: RequestTemplateSpec, hostHeader: string, keyspace: Keyspace, names: { clients: string[]; kinds: string[] }, valueSlab: string) {
    this.source = { keyspace, names, valueSlab };
    this.isHead = spec.method.toUpperCase() === 'HEAD';
    const headerLines = Object.entries(spec.headers)
      .filter(([name]) => !/^(host|content-length|connection)$/i.test(name))
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const head = `${spec.method.toUpperCase()} ${spec.path} HTTP/1.1\r\nHost: ${hostHeader}\r\n${headerLines}`;
    this.headParts = compile(head, spec.path);
    this.bodyParts = spec.body === undefined ? undefined : compile(spec.body, '');
    const constant = this.headParts.every((p) => typeof p === 'string') && (this.bodyParts ?? []).every((p) => typeof p === 'string');
    this.fixed = constant ? Buffer.from(this.render(undefined)) : undefined;
  }

  /** The request's bytes: the preserialized buffer, or a string built from the request's keys and sizes. */
  serialize(request: ScheduledRequest): string | Buffer {
    return this.fixed ?? this.render(request);
  }

  private render(request: ScheduledRequest | undefined): string {
    const head = fillParts(this.headParts, request, this.source);
    if (this.bodyParts === undefined) return `${head}\r\n`;
    const body = fillParts(this.bodyParts, request, this.source);
    return `${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  }
}

/** The parts with the request's fields filled in (every field empty when there is no request). */
export function fillParts(parts: readonly Part[], request: ScheduledRequest | undefined, source: FieldSource): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') out += part;
    else {
      const value = request === undefined ? '' : fieldValue(part.field, request, source);
      out += part.encode ? encodeURIComponent(value) : value;
    }
  }
  return out;
}

function fieldValue(field: TemplateField, r: ScheduledRequest, source: FieldSource): string {
  const ks = source.keyspace;
  switch (field) {
    case 'key':
      return r.batchSize > 0 ? ks.keyName(r.keys[0]!) : '';
    case 'keys': {
      let out = '';
      for (let i = 0; i < r.batchSize; i++) out += (i > 0 ? ',' : '') + ks.keyName(r.keys[i]!);
      return out;
    }
    case 'keys:json': {
      let out = '[';
      for (let i = 0; i < r.batchSize; i++) out += (i > 0 ? ',' : '') + JSON.stringify(ks.keyName(r.keys[i]!));
      return `${out}]`;
    }
    case 'batch':
      return String(r.batchSize);
    case 'value':
      // A slice of one slab generated at setup: no per-request value allocation beyond the view.
      return source.valueSlab.substring(0, Math.min(r.valueSize, source.valueSlab.length));
    case 'valueSize':
      return String(r.valueSize);
    case 'seq':
      return String(r.seq);
    case 'client':
      return source.names.clients[r.client] ?? '';
    case 'kind':
      return source.names.kinds[r.kind] ?? '';
  }
}

/** Splits text into literals and fields; fields inside `encodedSection` (the path) are URL-encoded. */
export function compile(text: string, encodedSection: string): Part[] {
  const parts: Part[] = [];
  const pathStart = encodedSection === '' ? -1 : text.indexOf(encodedSection);
  const pathEnd = pathStart < 0 ? -1 : pathStart + encodedSection.length;
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    const field = match[1]!;
    if (!isTemplateField(field)) continue;
    const at = match.index;
    if (at > last) parts.push(text.slice(last, at));
    parts.push({ field, encode: at >= pathStart && at < pathEnd });
    last = at + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

/** One slab of value bytes, sliced per request (printable, so it can sit in a JSON or form body). */
export function valueSlab(maxBytes: number): string {
  return 'v'.repeat(Math.max(0, Math.min(maxBytes, 16 * 1024 * 1024)));
}
