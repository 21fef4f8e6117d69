/**
 * The baseline of the fan-out workload: a bare `ws` server speaking just enough of the §4
 * protocol (subscribe → init, set → broadcast the same update text to the subscribers of the
 * path, then ack), with no storage, no auth and no ordering work. What is left over is the cost
 * of the real service.
 */
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

/** A running baseline server. */
export interface BareBroadcastServer {
  url: string;
  close(): Promise<void>;
}

interface ClientMessage {
  action?: string;
  path?: string;
  value?: unknown;
  id?: unknown;
}

/** Starts the baseline on 127.0.0.1 (`port`, or a free one). */
export async function startBareBroadcast(port = 0): Promise<BareBroadcastServer> {
  const subscribers = new Map<string, Set<WebSocket>>();
  let version = 0;
  const server = new WebSocketServer({ host: '127.0.0.1', port, maxPayload: 1024 * 1024, perMessageDeflate: false });
  server.on('connection', (socket) => {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as ClientMessage;
      const path = message.path ?? '';
      if (message.action === 'subscribe') {
        let set = subscribers.get(path);
        if (!set) {
          set = new Set();
          subscribers.set(path, set);
        }
        set.add(socket);
        socket.send(JSON.stringify({ event: 'init', path, value: null, version, id: message.id }));
      } else if (message.action === 'set') {
        version += 1;
        const update = JSON.stringify({ event: 'update', path, value: message.value, version });
        // Subscribers of the written path or one of its ancestors.
        const segments = path.split('/');
        for (let i = segments.length; i >= 1; i--) {
          for (const subscriber of subscribers.get(segments.slice(0, i).join('/')) ?? []) subscriber.send(update);
        }
        socket.send(JSON.stringify({ event: 'ack', action: 'set', path, id: message.id }));
      }
    });
    socket.on('close', () => {
      for (const set of subscribers.values()) set.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}
