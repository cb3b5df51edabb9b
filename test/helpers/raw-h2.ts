import { createServer, type AddressInfo, type Socket } from 'node:net';
import type { RunningTarget } from './targets.ts';

/** An HTTP/2 frame: 9-byte header and payload. */
export function h2Frame(type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(stream, 5);
  return Buffer.concat([header, payload]);
}

/**
 * A cleartext HTTP/2 (h2c, prior knowledge) server that speaks only as far as a test needs: its
 * SETTINGS, an ACK of the client's, and for every request (HEADERS frame) whatever `answer`
 * returns as raw frames — so a test can send what node:http2 never would.
 */
export async function startRawH2Target(answer: (stream: number) => Buffer): Promise<RunningTarget & { sessions(): number }> {
  const sockets = new Set<Socket>();
  let sessions = 0;
  const server = createServer((socket) => {
    sessions++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.write(h2Frame(4, 0, 0));
    let pending = Buffer.alloc(0);
    let prefaceRead = false;
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      if (!prefaceRead) {
        if (pending.length < 24) return;
        pending = pending.subarray(24);
        prefaceRead = true;
      }
      while (pending.length >= 9) {
        const length = pending.readUIntBE(0, 3);
        if (pending.length < 9 + length) return;
        const type = pending[3]!;
        const flags = pending[4]!;
        const stream = pending.readUInt32BE(5) & 0x7fffffff;
        pending = pending.subarray(9 + length);
        if (type === 4 && !(flags & 1)) socket.write(h2Frame(4, 1, 0));
        if (type === 1 && !socket.destroyed) socket.write(answer(stream));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    sessions: () => sessions,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
