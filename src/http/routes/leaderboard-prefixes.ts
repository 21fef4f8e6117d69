import type { FastifyRequest } from 'fastify';
import type { HttpApp } from '../server.js';

/** The seed's sample request puts `/client` before `/leaderboards`; both prefixes serve the same routes. */
export const LEADERBOARD_PREFIXES = ['/leaderboards', '/client/leaderboards'] as const;

/**
 * Registers `routes` once under each leaderboard prefix, in a scope whose requests first pass
 * `gate` (the client permission the routes need, or a player-or-server-key check).
 */
export function underLeaderboardPrefixes(
  app: HttpApp,
  gate: (request: FastifyRequest) => Promise<void>,
  routes: (scope: HttpApp, prefix: string) => void,
): void {
  app.register(async (scope: HttpApp) => {
    scope.addHook('onRequest', gate);
    for (const prefix of LEADERBOARD_PREFIXES) routes(scope, prefix);
  });
}
