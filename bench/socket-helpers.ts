/** Small helpers shared by the WebSocket client fleets of the fan-out workloads. */
import WebSocket from 'ws';

/** Rejects with "`what` timed out" unless `promise` settles within `ms`. */
export function withTimeout<T>(promise: Promise<T>, what: string, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} timed out`)), ms).unref()),
  ]);
}

/** Opens a socket and, when given a first message, waits for the answer to it. */
export function openSocket(url: string, headers: Record<string, string>, first: object | null): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    ws.once('error', reject);
    ws.once('open', () => {
      if (!first) return resolve(ws);
      ws.once('message', () => resolve(ws));
      ws.send(JSON.stringify(first));
    });
  });
}
