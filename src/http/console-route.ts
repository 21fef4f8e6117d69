import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
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

/** A `Host` header that is a host name, IPv4 or bracketed IPv6 address with an optional port, and nothing else. */
const PLAIN_HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The admin WebSocket of the realtime view, on the page's own host. CSP 3 lets `'self'` match
 * `ws:`/`wss:` of the same host and port (Chromium, Firefox, current Safari); these name it for
 * browsers that do not. An unexpected `Host` adds nothing rather than text to the header.
 */
function sameHostSockets(request: IncomingMessage): string {
  const host = request.headers.host;
  return host && PLAIN_HOST.test(host) ? `ws://${host} wss://${host}` : '';
}

/**
 * The console's security headers (issue 34): its own scripts, styles and API only; no inline
 * script or style, no plugins, no `<base>`, no form posts, no framing; Trusted Types enforced,
 * so an HTML string cannot reach an `innerHTML`-like sink. No HSTS: the service does not
 * terminate TLS; the proxy in front of it decides that for the whole host.
 */
export const CONSOLE_SECURITY_HEADERS: FastifyHelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      'default-src': ["'self'"],
      'script-src': ["'self'"],
      'script-src-attr': ["'none'"],
      'style-src': ["'self'"],
      'img-src': ["'self'"],
      'font-src': ["'self'"],
      'connect-src': ["'self'", sameHostSockets],
      'object-src': ["'none'"],
      'base-uri': ["'none'"],
      'form-action': ["'none'"],
      'frame-ancestors': ["'none'"],
      'require-trusted-types-for': ["'script'"],
      'trusted-types': ["'none'"],
    },
  },
  referrerPolicy: { policy: 'no-referrer' },
  xFrameOptions: { action: 'deny' },
  strictTransportSecurity: false,
};

/**
 * Serves the web console (§13) as static files at `/console/` from this process (no other
 * server). Without a build, `/console` answers 404 with how to build it. Its routes live in one
 * encapsulated plugin that carries the security headers above, so the API's routes, `/docs`
 * and their CORS headers are untouched by them.
 */
export async function registerConsole(app: HttpApp, root = consoleDirectory()): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(helmet, CONSOLE_SECURITY_HEADERS);
    if (!root) {
      scope.get('/console', { schema: { hide: true } }, async (_request, reply) =>
        reply.status(404).send({ detail: 'The console is not built: run npm run build' }),
      );
      return;
    }
    // The router ignores trailing slashes, so `/console` and `/console/` both arrive here: the first
    // is sent to the second, which the page's relative script and style URLs need.
    scope.get('/console', { schema: { hide: true } }, async (request, reply) => {
      if (!request.url.split('?')[0]?.endsWith('/')) return reply.redirect('/console/');
      const page = await readFile(join(root, 'index.html'));
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(page);
    });
    await scope.register(fastifyStatic, {
      root,
      prefix: '/console/',
      // @fastify/swagger-ui registers @fastify/static too: one `sendFile` decoration is enough.
      decorateReply: false,
      // Files change with every build: `max-age=0`, so a browser revalidates (ETag) rather than runs a stale script.
      maxAge: 0,
    });
  });
}
