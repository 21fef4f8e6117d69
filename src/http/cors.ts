import cors from '@fastify/cors';
import type { CorsOrigins } from '../config.js';
import type { HttpApp } from './server.js';

/**
 * CORS for browser games served from another origin. Clients authenticate with headers, never
 * cookies, so no credentials mode is needed and `*` exposes nothing a page could not already send.
 * Preflights allow the §1 headers and the §11 preconditions; `ETag` is exposed so the SDK reads versions.
 */
export async function registerCors(app: HttpApp, origins: CorsOrigins): Promise<void> {
  if (origins === 'off' || (Array.isArray(origins) && origins.length === 0)) return;
  await app.register(cors, {
    origin: origins === '*' ? '*' : origins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: [
      'authorization',
      'content-type',
      'x-client-id',
      'x-client-secret',
      'x-request-id',
      'if-match',
      'if-none-match',
    ],
    exposedHeaders: ['etag', 'x-request-id', 'retry-after'],
    maxAge: 600,
    // Preflights are answered before the rate limits and auth hooks (§1 headers are not sent on them).
    hook: 'onRequest',
  });
}
