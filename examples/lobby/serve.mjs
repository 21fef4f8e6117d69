// Serves the lobby example on http://127.0.0.1:5174 (PORT to change it): the page, and the SDK's browser
// bundle as /client.js (build it first: `npm install` or `npm run build` at the repository root).
// The page calls the service on its own origin: the service answers CORS (CDS_CORS_ORIGINS).
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const files = {
  '/': { path: join(here, 'index.html'), type: 'text/html; charset=utf-8' },
  '/client.js': { path: join(here, '..', '..', 'packages', 'client', 'dist', 'browser.js'), type: 'text/javascript' },
};
const port = Number(process.env.PORT ?? 5174);

createServer(async (request, response) => {
  const file = files[new URL(request.url ?? '/', 'http://x').pathname];
  if (!file) return response.writeHead(404).end('not found');
  try {
    response.writeHead(200, { 'content-type': file.type }).end(await readFile(file.path));
  } catch {
    response.writeHead(500).end(`missing ${file.path}: run npm run build at the repository root`);
  }
}).listen(port, '127.0.0.1', () => console.log(`open http://127.0.0.1:${port}/`));
