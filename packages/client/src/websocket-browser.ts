import { CdsError } from './errors.js';
import type { WebSocketConstructor } from './websocket.js';

/** The browser bundle's stand-in for `websocket-node.ts`: no WebSocket means an old browser. */
export async function loadNodeWebSocket(): Promise<WebSocketConstructor> {
  throw new CdsError(0, 'No WebSocket implementation: pass createClient({WebSocket})', 'network');
}
