/** A request sent as clients send large uploads: `Expect: 100-continue`, the body only after a `100 Continue`. */
import { request } from 'node:http';

/** What came back, and whether a `100 Continue` did first. */
export interface ExpectContinueAnswer {
  continued: boolean;
  status: number;
  body: string;
}

/** Sends `body` with `method` to `url` (`http://host:port/path`) expecting `100 Continue` before it. */
export function sendExpectingContinue(
  method: string,
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<ExpectContinueAnswer> {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    let continued = false;
    const req = request(
      {
        host: hostname,
        port,
        method,
        path: `${pathname}${search}`,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          expect: '100-continue',
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ continued, status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('continue', () => {
      continued = true;
      req.end(body);
    });
    req.on('error', reject);
  });
}
