import type { WebSocketConstructor } from './websocket.js';

/** `ws` by dynamic import (an optional peer dependency of the package on Node 20). */
export async function loadNodeWebSocket(): Promise<WebSocketConstructor> {
  const name = 'ws';
  const mod = (await import(name)) as { WebSocket: WebSocketConstructor };
  return mod.WebSocket;
}
