/**
 * A TCP proxy on 127.0.0.1 in front of the service for the SDK tests: it forwards every connection
 * (HTTP and WebSocket alike); `cut()` destroys the ones open now, without a close frame, as a
 * network drop does, and refuses new ones until `resume()`. The service sees its end of each
 * socket end; the client sees close 1006 and reconnects through the proxy once it forwards again.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface CutProxy {
  /** `http://127.0.0.1:<port>`: the service's URL through the proxy. */
  url: string;
  /** Destroys every connection open now (both sides) and refuses new ones until `resume()`. */
  cut(): void;
  /** Forwards new connections again. */
  resume(): void;
  close(): Promise<void>;
}

export function startCutProxy(upstreamPort: number): Promise<CutProxy> {
  const open = new Set<Socket>();
  let refusing = false;
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(upstreamPort, '127.0.0.1');
    track(client);
    track(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  const cut = () => {
    refusing = true;
    for (const socket of [...open]) socket.destroy();
  };
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}`,
        cut,
        resume: () => {
          refusing = false;
        },
        close: () =>
          new Promise((done) => {
            cut();
            server.close(() => done());
          }),
      });
    });
  });
}
