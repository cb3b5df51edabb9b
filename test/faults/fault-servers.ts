import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';

/*
 * Servers on 127.0.0.1 that answer correctly up to a request and misbehave from it on. They count
 * requests as they arrive (not by the clock), so a busy machine shifts when a fault starts but not
 * which request it starts at: the tests can assert exact outcome counts.
 */

export interface FaultServer {
  port: number;
  /** Requests seen so far, over every connection. */
  readonly requests: number;
  /** Stops listening and drops every connection, as a server process that exits would. */
  exit(): void;
  close(): Promise<void>;
}

/** What a fault does with one request from the faulty one on; `first` is true for the socket's first faulty request. */
export type Fault = (socket: Socket, context: { first: boolean; server: FaultServer; onClose: (stop: () => void) => void }) => void;

const OK_RESPONSE = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';

interface ServerOptions {
  /** Called once per accepted socket, before any request (a server that speaks first). */
  greet?: (socket: Socket) => void;
}

/**
 * An HTTP/1.1 server for bodiless requests (the driver's default GET /): requests 1 … from−1 get
 * `200 ok`, each request from `from` on goes to `fault`.
 */
export function startFaultyHttp(from: number, fault: Fault, options: ServerOptions = {}): Promise<FaultServer> {
  return startFaultyServer(options, (socket, server) => {
    let pending = '';
    let faulty = false;
    return (data) => {
      pending += data.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        pending = pending.slice(end + 4);
        if (server.count() < from) socket.write(OK_RESPONSE);
        else {
          fault(socket, { first: !faulty, server: server.handle, onClose: server.onClose(socket) });
          faulty = true;
        }
      }
    };
  });
}

const MC_HEADER = 24;

/**
 * A fake memcached (binary protocol) that answers gets with `Not found` — a miss, which is `ok` —
 * up to request from−1, and passes each request from `from` on to `fault` with its header.
 */
export function startFaultyMemcached(from: number, fault: (socket: Socket, request: Buffer) => void): Promise<FaultServer> {
  return startFaultyServer({}, (socket, server) => {
    let pending = Buffer.alloc(0);
    return (data) => {
      pending = Buffer.concat([pending, data]);
      while (pending.length >= MC_HEADER && pending.length >= MC_HEADER + pending.readUInt32BE(8)) {
        const header = Buffer.from(pending.subarray(0, MC_HEADER));
        pending = pending.subarray(MC_HEADER + header.readUInt32BE(8));
        if (server.count() < from) socket.write(memcachedResponse(header, 0x0001, 'Not found'));
        else fault(socket, header);
      }
    };
  });
}

/** A binary-protocol response to `request`: its opcode and opaque, `status`, `body` as the value. */
export function memcachedResponse(request: Buffer, status: number, body: string): Buffer {
  const out = Buffer.alloc(MC_HEADER + body.length);
  out[0] = 0x81;
  out[1] = request[1]!;
  out.writeUInt16BE(status, 6);
  out.writeUInt32BE(body.length, 8);
  request.copy(out, 12, 12, 16);
  out.write(body, MC_HEADER, 'latin1');
  return out;
}

interface ServerState {
  /** Counts one more request and returns its 1-based index. */
  count(): number;
  handle: FaultServer;
  onClose(socket: Socket): (stop: () => void) => void;
}

async function startFaultyServer(options: ServerOptions, onSocket: (socket: Socket, state: ServerState) => (data: Buffer) => void): Promise<FaultServer> {
  const sockets = new Set<Socket>();
  let requests = 0;
  const server: Server = createServer();
  const handle: FaultServer = {
    port: 0,
    get requests() {
      return requests;
    },
    exit() {
      server.close();
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
  const state: ServerState = {
    count: () => ++requests,
    handle,
    onClose: (socket) => (stop) => socket.once('close', stop),
  };
  server.on('connection', (socket) => {
    sockets.add(socket);
    // The client closes sockets under a fault's writes: their errors are expected.
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    options.greet?.(socket);
    socket.on('data', onSocket(socket, state));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  handle.port = (server.address() as AddressInfo).port;
  return handle;
}
