/** The WebSocket the SDK needs: the browser's, Node 22's global one, or `ws`. */
export interface SocketEvent {
  type: string;
  data?: unknown;
  code?: number;
}

export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: SocketEvent) => void): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** `globalThis.WebSocket`, else `ws` loaded on demand (Node 20 has no global WebSocket). */
export async function loadWebSocket(): Promise<WebSocketConstructor> {
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (global) return global;
  return loadWs();
}

/** Replaced by a stub in the browser bundle (build.mjs), so the bundle imports nothing. */
async function loadWs(): Promise<WebSocketConstructor> {
  const { loadNodeWebSocket } = await import('./websocket-node.js');
  return loadNodeWebSocket();
}
