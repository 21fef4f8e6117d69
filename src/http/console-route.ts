import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { HttpApp } from './server.js';

/** Where `npm install`/`npm run build` put the console's files (packages/console/dist), if anywhere. */
export function consoleDirectory(): string | null {
  try {
    const manifest = createRequire(import.meta.url).resolve('@cds/console/package.json');
    const dist = join(dirname(manifest), 'dist');
    return existsSync(join(dist, 'index.html')) ? dist : null;
  } catch {
    return null;
  }
}

/**
 * Serves the web console (§13) as static files at `/console/` from this process (no other
 * server). Without a build, `/console` answers 404 with how to build it.
 */
export async function registerConsole(app: HttpApp, root = consoleDirectory()): Promise<void> {
  if (!root) {
    app.get('/console', { schema: { hide: true } }, async (_request, reply) =>
      reply.status(404).send({ detail: 'The console is not built: run npm run build' }),
    );
    return;
  }
  // The router ignores trailing slashes, so `/console` and `/console/` both arrive here: the first
  // is sent to the second, which the page's relative script and style URLs need.
  app.get('/console', { schema: { hide: true } }, async (request, reply) => {
    if (!request.url.split('?')[0]?.endsWith('/')) return reply.redirect('/console/');
    const page = await readFile(join(root, 'index.html'));
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(page);
  });
  await app.register(fastifyStatic, {
    root,
    prefix: '/console/',
    // @fastify/swagger-ui registers @fastify/static too: one `sendFile` decoration is enough.
    decorateReply: false,
    // Files change with every build: `max-age=0`, so a browser revalidates (ETag) rather than runs a stale script.
    maxAge: 0,
  });
}
