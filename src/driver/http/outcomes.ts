import { RunStartError } from '../errors.ts';
import { SOCKET_CAUSES, type TransportRun } from '../transport.ts';
import { tlsFailureReason } from './tls.ts';

/** Connection failure causes as outcome reasons; a TLS failure is `tls_error`, anything else `socket_error`. */
const CAUSES: Readonly<Record<string, string>> = {
  ...SOCKET_CAUSES,
  too_large: 'response_too_large',
  ETIMEDOUT: 'timeout',
  EADDRNOTAVAIL: 'dial_error',
  EADDRINUSE: 'dial_error',
  // HTTP/2 (h2-session.ts): the server reset or refused one stream, or broke the framing.
  ERR_HTTP2_STREAM_ERROR: 'reset',
  ERR_HTTP2_ERROR: 'protocol_error',
};

/**
 * How an HTTP response or failure becomes an outcome, the same for HTTP/1.1 and HTTP/2: a status
 * below 400 is ok, 4xx and 5xx are errors by class, a failure is its cause's reason. Reason ids are
 * looked up once, so completing a request allocates nothing.
 */
export class HttpOutcomes {
  private readonly reasonByStatusClass: number[];
  private readonly reasonByCause = new Map<string, number>();
  private readonly statusCounts = new Map<number, number>();

  constructor(private readonly run: TransportRun) {
    const recorder = run.recorder;
    // Indexed by status / 100 (only 200–599 reach here: 1xx are interim or a protocol error).
    this.reasonByStatusClass = [0, 0, 0, 0, recorder.reason('status_4xx'), recorder.reason('status_5xx')];
    // Registered up front, as before TLS and HTTP/2 came: the result lists reasons in this order.
    for (const [cause, name] of Object.entries(CAUSES)) this.reasonByCause.set(cause, recorder.reason(name));
  }

  responded(slot: number, status: number): void {
    this.statusCounts.set(status, (this.statusCounts.get(status) ?? 0) + 1);
    this.run.complete(slot, this.reasonByStatusClass[(status / 100) | 0] ?? 0, this.run.nowUs());
  }

  /** `cause`: an errno or error code, "closed", "timeout", "protocol" or "too_large". */
  failed(slot: number, cause: string): void {
    let reason = this.reasonByCause.get(cause);
    if (reason === undefined) {
      reason = this.run.recorder.reason(CAUSES[cause] ?? tlsFailureReason(cause) ?? 'socket_error');
      this.reasonByCause.set(cause, reason);
    }
    this.run.complete(slot, reason, this.run.nowUs());
  }

  statusCodes(): Record<string, number> {
    return Object.fromEntries([...this.statusCounts].sort((a, b) => a[0] - b[0]));
  }
}

/**
 * A run none of whose connections came up says why, from the last dial's error: a refused port
 * reads as before, a TLS failure names the certificate (or ALPN) problem and the profile fields that fix it.
 */
export function withDialFailure(error: unknown, lastError: string | undefined): unknown {
  if (!(error instanceof RunStartError) || lastError === undefined) return error;
  return new RunStartError(`${error.message}; last failure ${lastError}${fixFor(lastError.split(':', 1)[0]!)}`);
}

function fixFor(code: string): string {
  // The server offered no protocol the client asked for by ALPN: with http2, it does not speak h2.
  if (code.endsWith('NO_APPLICATION_PROTOCOL')) return ' — the server does not offer HTTP/2 over TLS (ALPN h2): set http.http2: false';
  if (tlsFailureReason(code)) return ' — trust the server’s CA with http.tls.ca, send a client certificate with http.tls.cert and key, or (testing only) http.tls.insecure: true';
  return '';
}
