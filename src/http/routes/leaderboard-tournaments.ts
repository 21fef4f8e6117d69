import type { LeaderboardService } from '../../core/leaderboards/leaderboard-service.js';
import { type ClientAuthenticator, requirePermission } from '../auth-hook.js';
import { NoBody } from '../schemas/admin.js';
import { ErrorSchema, errorResponses } from '../schemas/common.js';
import { LeaderboardParams } from '../schemas/leaderboards.js';
import { BoardListSchema, JoinSchema, tournamentRouteDescriptions } from '../schemas/tournaments.js';
import type { HttpApp } from '../server.js';
import { underLeaderboardPrefixes } from './leaderboard-prefixes.js';

/** The board list (`client.leaderboard`) and joining a tournament (`client.leaderboard.submit`), §18. */
export function leaderboardTournamentRoutes(
  app: HttpApp,
  deps: { auth: ClientAuthenticator; leaderboards: LeaderboardService },
): void {
  const { leaderboards } = deps;
  underLeaderboardPrefixes(app, requirePermission(deps.auth, 'client.leaderboard'), (scope, prefix) => {
    scope.get(
      prefix,
      {
        schema: {
          description: tournamentRouteDescriptions.list,
          response: { 200: BoardListSchema, ...errorResponses },
        },
      },
      (request) => leaderboards.list(request.projectId, request.userId),
    );
  });
  // Joining is what lets a player submit: the submit permission.
  underLeaderboardPrefixes(app, requirePermission(deps.auth, 'client.leaderboard.submit'), (scope, prefix) => {
    scope.post(
      `${prefix}/:slug/join`,
      {
        schema: {
          description: tournamentRouteDescriptions.join,
          params: LeaderboardParams,
          body: NoBody,
          response: { 200: JoinSchema, ...errorResponses, 409: ErrorSchema, 503: ErrorSchema },
        },
      },
      (request) => leaderboards.join(request.projectId, request.userId, request.params.slug),
    );
  });
}
