import type { LeaderboardService } from '../../core/leaderboards/leaderboard-service.js';
import { type ClientAuthenticator, requirePermission } from '../auth-hook.js';
import { hookOrigin } from '../hook-origin.js';
import { ErrorSchema, errorResponses } from '../schemas/common.js';
import {
  BundleQuery,
  BundleSchema,
  HistoryQuery,
  HistorySchema,
  LeaderboardParams,
  leaderboardRouteDescriptions,
  MeSchema,
  SubmitBody,
  UsersListSchema,
  UsersQuery,
} from '../schemas/leaderboards.js';
import type { HttpApp } from '../server.js';
import { underLeaderboardPrefixes } from './leaderboard-prefixes.js';

/** Leaderboard reads (`client.leaderboard`) and stat submissions (`client.leaderboard.submit`), §5. */
export function leaderboardRoutes(
  app: HttpApp,
  deps: { auth: ClientAuthenticator; leaderboards: LeaderboardService },
): void {
  const { leaderboards } = deps;
  underLeaderboardPrefixes(app, requirePermission(deps.auth, 'client.leaderboard'), (scope, prefix) => {
    scope.get(
      `${prefix}/:slug/bundle`,
      {
        schema: {
          description: leaderboardRouteDescriptions.bundle,
          params: LeaderboardParams,
          querystring: BundleQuery,
          response: { 200: BundleSchema, ...errorResponses },
        },
      },
      (request) => leaderboards.bundle(request.projectId, request.userId, request.params.slug, request.query),
    );
    scope.get(
      `${prefix}/:slug/users`,
      {
        schema: {
          description: leaderboardRouteDescriptions.users,
          params: LeaderboardParams,
          querystring: UsersQuery,
          response: { 200: UsersListSchema, ...errorResponses },
        },
      },
      (request) => leaderboards.users(request.projectId, request.userId, request.params.slug, request.query),
    );
    scope.get(
      `${prefix}/:slug/history`,
      {
        schema: {
          description: leaderboardRouteDescriptions.history,
          params: LeaderboardParams,
          querystring: HistoryQuery,
          response: { 200: HistorySchema, ...errorResponses },
        },
      },
      (request) => leaderboards.history(request.projectId, request.userId, request.params.slug, request.query),
    );
  });

  underLeaderboardPrefixes(app, requirePermission(deps.auth, 'client.leaderboard.submit'), (scope, prefix) => {
    scope.post(
      `${prefix}/:slug/stats`,
      {
        schema: {
          description: leaderboardRouteDescriptions.stats,
          params: LeaderboardParams,
          body: SubmitBody,
          response: { 200: MeSchema, ...errorResponses, 409: ErrorSchema, 503: ErrorSchema },
        },
      },
      (request) => {
        const { projectId, userId } = request;
        const origin = hookOrigin(request, userId);
        return leaderboards.submit(projectId, request.params.slug, userId, request.body.value, 'client', origin);
      },
    );
  });
}
