/**
 * A JSON request on a connection of its own (no keep-alive pool), so that under node:cluster's
 * round-robin each request is handed to the next worker in turn.
 */
import { request } from 'node:http';

/** Resolves to the status and parsed body; rejects when the connection fails (refused, reset). */
export function callFresh(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method,
        agent: false,
        headers: {
          ...headers,
          connection: 'close',
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.setTimeout(20_000, () => outgoing.destroy(new Error(`${method} ${url}: no answer in 20 s`)));
    outgoing.end(payload);
  });
}
