import { z } from 'zod';
import { isPathOnTarget } from '../../target.ts';
import { duration } from '../../units.ts';

/* The profile's `http:` section: how the mix becomes HTTP requests. */

const RequestTemplateSchema = z
  .strictObject({
    method: z
      .string()
      .regex(/^[A-Z]+$/, 'expected an upper-case HTTP method, e.g. GET or POST')
      .default('GET'),
    path: z.string().startsWith('/', 'expected a path starting with /').default('/').meta({ description: 'Request path; placeholders are URL-encoded, e.g. /item/{{key}}.' }),
    headers: z.record(z.string(), z.string()).default({}).meta({ description: 'Extra headers (Host and Content-Length are set by the driver).' }),
    body: z.string().optional().meta({ description: 'Request body; placeholders are written as is, e.g. {"uris": {{keys:json}}}.' }),
  })
  .meta({ description: 'An HTTP request template. Placeholders: {{key}} {{keys}} {{keys:json}} {{batch}} {{value}} {{valueSize}} {{seq}} {{client}} {{kind}}.' });

type RequestTemplate = z.output<typeof RequestTemplateSchema>;
type RequestTemplates = Record<string, RequestTemplate> & { default: RequestTemplate };

/** File paths are relative to the profile's folder, like a topology file's. */
const HttpTlsSchema = z
  .strictObject({
    ca: z.string().min(1).optional().meta({ description: 'PEM file of the certificate authorities to trust instead of Node’s bundled roots, e.g. a private CA.' }),
    cert: z.string().min(1).optional().meta({ description: 'PEM client certificate file, for a server that requires client certificates (needs key).' }),
    key: z.string().min(1).optional().meta({ description: 'PEM private key file of the client certificate (needs cert).' }),
    servername: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'SNI name sent, and the name the server certificate must carry; default the target’s host (no SNI for an IP address).' }),
    insecure: z
      .boolean()
      .default(false)
      .meta({ description: 'Accept any server certificate (no verification); the run is flagged, since a real client would refuse such a server.' }),
  })
  .superRefine((tls, ctx) => {
    if ((tls.cert === undefined) !== (tls.key === undefined))
      ctx.addIssue({ code: 'custom', path: [tls.cert === undefined ? 'cert' : 'key'], message: 'a client certificate needs both cert and key' });
  })
  .meta({ description: 'TLS of an https:// target.' });

export const HttpTargetSchema = z
  .strictObject({
    connections: z.number().int().min(1).default(8).meta({ description: 'Keep-alive connections the generator holds to the target.' }),
    pipelining: z
      .number()
      .int()
      .min(1)
      .default(1)
      .meta({ description: 'Requests in flight per connection: HTTP/1.1 pipelining (1 = none), or with http2 the concurrent streams per connection.' }),
    http2: z.boolean().default(false).meta({
      description:
        'HTTP/2: negotiated by ALPN over TLS (https://), with prior knowledge (h2c) over plain TCP (http://); streams are capped by the server’s SETTINGS_MAX_CONCURRENT_STREAMS.',
    }),
    tls: HttpTlsSchema.prefault({}),
    timeout: duration
      .default(10_000_000)
      .meta({ description: 'Per request, from its write; on expiry the connection is closed and its requests fail as timeout (HTTP/2: only that stream is cancelled).' }),
    inFlightCap: z.number().int().min(1).default(10_000).meta({ description: 'Most requests in flight or waiting for a connection; a request due beyond it is dropped.' }),
    statsPath: z
      .string()
      .refine(isPathOnTarget, 'expected a path on the target, starting with a single / (no scheme, host or backslash), e.g. /stats')
      .optional()
      .meta({ description: 'A path on the target that returns JSON stats (the reference service: /stats); polled each interval into gauges target.*.' }),
    requests: z
      .record(z.string(), RequestTemplateSchema)
      .default({})
      // Kinds without a template of their own get `default`; when the profile names none, it is GET /.
      .transform((templates): RequestTemplates => ({ default: { method: 'GET', path: '/', headers: {} }, ...templates }))
      .meta({ description: 'Request template per kind of the mix; `default` serves kinds without one.' }),
  })
  .meta({ description: 'How the mix becomes HTTP requests when the target is http://host:port or https://host:port.' });

/** The profile's sections for http: `http:`. */
export const HTTP_SECTIONS = {
  http: HttpTargetSchema.prefault({}).meta({ description: 'Request templates, connection pool, TLS and HTTP/2 for an http:// or https:// target.' }),
};

/** The profile's `http:` section with every default applied (durations in µs). */
export type HttpSettings = z.output<typeof HttpTargetSchema>;
/** The `http.tls` section: file paths as written (relative to the profile). */
export type HttpTlsSettings = z.output<typeof HttpTlsSchema>;
