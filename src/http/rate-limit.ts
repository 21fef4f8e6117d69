import rateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { AppError } from '../core/errors.js';
import type { HttpApp } from './server.js';

/** Requests allowed per window; 0 turns a limit off. */
export interface RateLimits {
  perClient: number;
  perIp: number;
  windowMs: number;
  /**
   * Where to count (§14): in this Redis, under `<prefix>:rate-limit:`, so every instance shares
   * the counts; in process when absent. The limiter owns the client and closes it with the app.
   * While Redis is unreachable requests are let through uncounted, not refused.
   */
  redis?: { client: Redis; prefix: string };
}

/**
 * Limits requests per client id (requests that carry one) and per IP (the others), answering
 * 429 with `Retry-After`. Runs before authentication, so floods never reach the database.
 */
export async function registerRateLimits(app: HttpApp, limits: RateLimits): Promise<void> {
  if (limits.perClient === 0 && limits.perIp === 0) {
    limits.redis?.client.disconnect();
    return;
  }
  const clientIdOf = (headers: Record<string, unknown>) => {
    const id = headers['x-client-id'] ?? undefined;
    return typeof id === 'string' && id !== '' ? id : undefined;
  };
  await app.register(rateLimit, {
    // Not per route: route hooks run after the auth hook, and unmatched URLs have no route.
    global: false,
    timeWindow: limits.windowMs,
    keyGenerator: (request) => {
      const clientId = clientIdOf(request.headers);
      return clientId ? `client:${clientId}` : `ip:${request.ip}`;
    },
    max: (request) => {
      const limit = clientIdOf(request.headers) ? limits.perClient : limits.perIp;
      return limit === 0 ? Number.MAX_SAFE_INTEGER : limit;
    },
    ...(limits.redis
      ? { redis: limits.redis.client, nameSpace: `${limits.redis.prefix}:rate-limit:`, skipOnError: true }
      : {}),
    allowList: (request) => request.url === '/healthz' || request.url === '/readyz',
    errorResponseBuilder: (_request, context) =>
      new AppError('rate_limited', `Rate limit exceeded, retry in ${Math.ceil(context.ttl / 1000)} s`),
  });
  app.addHook('onRequest', app.rateLimit());
  const redis = limits.redis?.client;
  if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => redis.disconnect())));
}
