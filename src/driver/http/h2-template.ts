import type { ScheduledRequest } from '../../schedule/types.ts';
import { literalField, STATIC_INDEX, staticNameIndex } from './hpack.ts';
import { compile, fillParts, type FieldSource, type Part, type RequestTemplateSpec } from './template.ts';

/** Headers HTTP/2 forbids (connection-specific) or that the driver sets itself. */
const NOT_SENT = /^(host|content-length|connection|keep-alive|proxy-connection|transfer-encoding|upgrade)$/i;

/**
 * A request template for HTTP/2: the same placeholders as the HTTP/1.1 template, rendered as a path
 * and a body instead of bytes. Every field but `:path` is constant, so the header block's other
 * bytes are encoded once: `:method` and `:scheme` (static table), the template's headers (HPACK
 * literals without indexing). `:authority`, the target's, is the session's (h2-frames.ts).
 */
export class H2RequestTemplate {
  readonly pseudo: Buffer;
  readonly fields: Buffer;
  private readonly pathParts: Part[];
  private readonly bodyParts: Part[] | undefined;
  private readonly fixedPath: string | undefined;
  private readonly fixedBody: Buffer | undefined;

  constructor(
    spec: RequestTemplateSpec,
    tls: boolean,
    private readonly source: FieldSource,
  ) {
    const method = spec.method.toUpperCase();
    const methodField =
      method === 'GET' ? [0x80 | STATIC_INDEX.methodGet] : method === 'POST' ? [0x80 | STATIC_INDEX.methodPost] : literalField(STATIC_INDEX.methodGet, ':method', method);
    const scheme = 0x80 | (tls ? STATIC_INDEX.schemeHttps : STATIC_INDEX.schemeHttp);
    this.pseudo = Buffer.concat([Buffer.from(methodField), Buffer.from([scheme])]);
    const fields = Object.entries(spec.headers)
      .filter(([name]) => !NOT_SENT.test(name))
      .map(([name, value]) => literalField(staticNameIndex(name.toLowerCase()), name.toLowerCase(), value));
    this.fields = Buffer.concat(fields);
    this.pathParts = compile(spec.path, spec.path);
    this.bodyParts = spec.body === undefined ? undefined : compile(spec.body, '');
    this.fixedPath = isConstant(this.pathParts) ? fillParts(this.pathParts, undefined, source) : undefined;
    this.fixedBody = this.bodyParts && isConstant(this.bodyParts) ? Buffer.from(fillParts(this.bodyParts, undefined, source)) : undefined;
  }

  path(request: ScheduledRequest): string {
    return this.fixedPath ?? fillParts(this.pathParts, request, this.source);
  }

  /** The body, or undefined for a template without one (the stream ends with its headers). */
  body(request: ScheduledRequest): Buffer | undefined {
    if (this.bodyParts === undefined) return undefined;
    return this.fixedBody ?? Buffer.from(fillParts(this.bodyParts, request, this.source));
  }
}

function isConstant(parts: readonly Part[]): boolean {
  return parts.every((p) => typeof p === 'string');
}
