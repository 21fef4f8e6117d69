import type { FastifyRequest } from 'fastify';
import { ADMIN_PERMISSIONS } from '../../core/admin/admin-permissions.js';
import type { LeaderboardService } from '../../core/leaderboards/leaderboard-service.js';
import type { StandingReader } from '../../core/leaderboards/player-reads.js';
import { type AdminGuard, decorateAdminRequests, playerOrServerKey } from '../admin-auth-hook.js';
import { type ClientAuthenticator, requirePermission } from '../auth-hook.js';
import { errorResponses } from '../schemas/common.js';
import {
  AroundQuery,
  AroundSchema,
  LeaderboardParams,
  leaderboardRouteDescriptions,
  MyHistoryQuery,
  MyHistorySchema,
} from '../schemas/leaderboards.js';
import type { HttpApp } from '../server.js';
import { underLeaderboardPrefixes } from './leaderboard-prefixes.js';

/** What the routes centred on one player use. */
export interface LeaderboardPlayerDeps {
  auth: ClientAuthenticator;
  guard: AdminGuard;
  leaderboards: LeaderboardService;
}

/** The leaderboard reads centred on one player (§18, `client.leaderboard`): around me, and my history. */
export function leaderboardPlayerRoutes(app: HttpApp, deps: LeaderboardPlayerDeps): void {
  const { players } = deps.leaderboards;
  decorateAdminRequests(app);
  // Game servers read around any of their players: a server key alone, with `user_id`.
  const playerOrKey = playerOrServerKey(deps.auth, deps.guard, 'client.leaderboard', ADMIN_PERMISSIONS.documentView);
  underLeaderboardPrefixes(app, playerOrKey, (scope, prefix) => {
    scope.get(
      `${prefix}/:slug/around`,
      {
        schema: {
          description: leaderboardRouteDescriptions.around,
          params: LeaderboardParams,
          querystring: AroundQuery,
          response: { 200: AroundSchema, ...errorResponses },
        },
      },
      (request) =>
        players.around(request.projectId, readerOf(request, request.query.user_id), request.params.slug, request.query),
    );
  });
  underLeaderboardPrefixes(app, requirePermission(deps.auth, 'client.leaderboard'), (scope, prefix) => {
    scope.get(
      `${prefix}/:slug/history/me`,
      {
        schema: {
          description: leaderboardRouteDescriptions.historyMe,
          params: LeaderboardParams,
          querystring: MyHistoryQuery,
          response: { 200: MyHistorySchema, ...errorResponses },
        },
      },
      (request) => players.myHistory(request.projectId, request.userId, request.params.slug, request.query),
    );
  });
}

/** Whose standing the request reads: the server key's named user, else the signed-in player. */
function readerOf(request: FastifyRequest, userId: number | undefined): StandingReader {
  return request.admin ? { kind: 'server_key', userId } : { kind: 'player', userId: request.userId };
}
