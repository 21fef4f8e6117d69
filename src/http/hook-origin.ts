import type { FastifyRequest } from 'fastify';
import type { HookOrigin } from '../core/functions/before-hooks.js';

/** Who made a client request, as a before hook (§16) is told: the player (null before sign-up), the request id, its log. */
export function hookOrigin(request: FastifyRequest, userId: number | null): HookOrigin {
  return { userId, requestId: request.id, log: request.log };
}
