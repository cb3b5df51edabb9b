import type { OutgoingHttpHeaders } from 'node:http2';
import type { ScheduledRequest } from '../../schedule/types.ts';
import { compile, fillParts, type FieldSource, type Part, type RequestTemplateSpec } from './template.ts';

/** Headers HTTP/2 forbids (connection-specific) or that the driver sets itself. */
const NOT_SENT = /^(host|content-length|connection|keep-alive|proxy-connection|transfer-encoding|upgrade)$/i;

/**
 * A request template for HTTP/2: the same placeholders as the HTTP/1.1 template, rendered as a path
 * and a body instead of bytes, with one header object per template that each request only updates
 * (`:path`), since node:http2 copies the headers when it opens a stream.
 */
export class H2RequestTemplate {
  readonly headers: OutgoingHttpHeaders;
  readonly hasBody: boolean;
  private readonly pathParts: Part[];
  private readonly bodyParts: Part[] | undefined;
  private readonly fixedPath: string | undefined;
  private readonly fixedBody: string | undefined;

  constructor(
    spec: RequestTemplateSpec,
    authority: string,
    private readonly source: FieldSource,
  ) {
    this.headers = { ':method': spec.method.toUpperCase(), ':authority': authority, ':path': spec.path };
    for (const [name, value] of Object.entries(spec.headers)) if (!NOT_SENT.test(name)) this.headers[name.toLowerCase()] = value;
    this.pathParts = compile(spec.path, spec.path);
    this.bodyParts = spec.body === undefined ? undefined : compile(spec.body, '');
    this.hasBody = this.bodyParts !== undefined;
    this.fixedPath = isConstant(this.pathParts) ? fillParts(this.pathParts, undefined, source) : undefined;
    this.fixedBody = this.bodyParts && isConstant(this.bodyParts) ? fillParts(this.bodyParts, undefined, source) : undefined;
  }

  path(request: ScheduledRequest): string {
    return this.fixedPath ?? fillParts(this.pathParts, request, this.source);
  }

  /** The body, or undefined for a template without one (the stream ends with its headers). */
  body(request: ScheduledRequest): string | undefined {
    if (this.bodyParts === undefined) return undefined;
    return this.fixedBody ?? fillParts(this.bodyParts, request, this.source);
  }
}

function isConstant(parts: readonly Part[]): boolean {
  return parts.every((p) => typeof p === 'string');
}
