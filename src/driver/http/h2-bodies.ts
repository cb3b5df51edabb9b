import type { H2FrameWriter } from './h2-frames.ts';

/** Every window starts here until SETTINGS_INITIAL_WINDOW_SIZE or WINDOW_UPDATE says otherwise (RFC 9113 §6.9.2). */
const DEFAULT_WINDOW = 65_535;

/** A request body the flow-control windows held back: the rest goes out as WINDOW_UPDATEs come. */
interface BlockedBody {
  id: number;
  body: Buffer;
  offset: number;
  window: number;
}

/**
 * Request bodies under HTTP/2's send-side flow control: DATA frames as far as the connection's
 * and the stream's windows (and the server's frame size) allow, the rest held until the server
 * opens them. Only a body that did not fit is kept (an object each, off the common path: most
 * bodies fit the 64 KB windows whole).
 */
export class H2BodySender {
  private connectionWindow = DEFAULT_WINDOW;
  private initialStreamWindow = DEFAULT_WINDOW;
  private blocked: BlockedBody[] = [];

  constructor(private readonly writer: H2FrameWriter) {}

  /** Stream `id`'s body, ending the stream (an empty one at once). */
  send(id: number, body: Buffer): void {
    this.write({ id, body, offset: 0, window: this.initialStreamWindow });
  }

  /** The server's SETTINGS_INITIAL_WINDOW_SIZE: it moves every open stream's window by the change (§6.9.2). */
  set initialWindow(size: number) {
    for (const b of this.blocked) b.window += size - this.initialStreamWindow;
    this.initialStreamWindow = size;
    this.flush();
  }

  /** WINDOW_UPDATE for the connection (id 0) or a stream. */
  windowUpdate(id: number, increment: number): void {
    if (id === 0) this.connectionWindow += increment;
    else for (const b of this.blocked) if (b.id === id) b.window += increment;
    this.flush();
  }

  /** The stream ended (reset, cancelled, refused): what is left of its body is never sent. */
  drop(id: number): void {
    if (this.blocked.length > 0) this.blocked = this.blocked.filter((b) => b.id !== id);
  }

  clear(): void {
    this.blocked = [];
  }

  private write(b: BlockedBody): void {
    if (b.body.length === 0) return this.writer.data(b.id, b.body, 0, 0, true);
    while (b.offset < b.body.length) {
      const n = Math.min(b.body.length - b.offset, this.connectionWindow, b.window, this.writer.maxFrameSize);
      if (n <= 0) {
        this.blocked.push(b);
        return;
      }
      this.writer.data(b.id, b.body, b.offset, b.offset + n, b.offset + n === b.body.length);
      b.offset += n;
      this.connectionWindow -= n;
      b.window -= n;
    }
  }

  private flush(): void {
    if (this.blocked.length === 0) return;
    const waiting = this.blocked;
    this.blocked = [];
    for (const b of waiting) this.write(b);
  }
}
