/**
 * A tiny dev server on 127.0.0.1 for the browser test: serves a few static files and forwards every
 * other request (HTTP and WebSocket upgrades) to the service, so the page and the API share one origin
 * (the service sends no CORS headers), as a game's dev server proxy would.
 */
import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';

export interface StaticProxy {
  url: string;
  close(): Promise<void>;
}

export function startStaticProxy(
  files: Record<string, { type: string; body: string }>,
  upstreamPort: number,
): Promise<StaticProxy> {
  const server: Server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    if (file) {
      res.writeHead(200, { 'content-type': file.type });
      res.end(file.body);
      return;
    }
    const upstream = request(
      { host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.on('upgrade', (req, socket, head) => {
    const upstream = connect(upstreamPort, '127.0.0.1', () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
