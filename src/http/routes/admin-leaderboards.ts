import { ADMIN_PERMISSIONS } from '../../core/admin/admin-permissions.js';
import { boardView, editOf } from '../../core/admin/board-definitions.js';
import type { ProjectAdminService } from '../../core/admin/project-admin-service.js';
import { definitionOf } from '../../core/leaderboards/board-record.js';
import type { LeaderboardService } from '../../core/leaderboards/leaderboard-service.js';
import { isoTime } from '../../core/leaderboards/period-schedule.js';
import { type AdminGuard, decorateAdminRequests } from '../admin-auth-hook.js';
import {
  AdminAroundQuery,
  AdminSubmitBody,
  adminConflictResponses,
  BoardParams,
  BoardsSchema,
  CreateBoardBody,
  NoBody,
  ProjectParams,
  ResetSchema,
  UpdateBoardBody,
} from '../schemas/admin.js';
import { ErrorSchema, errorResponses } from '../schemas/common.js';
import {
  AroundSchema,
  BoardSchema,
  HistoryQuery,
  HistorySchema,
  MeSchema,
  UsersListSchema,
  UsersQuery,
} from '../schemas/leaderboards.js';
import type { HttpApp } from '../server.js';
import { adminRoute, inProject, SCOPE } from './admin-project-shared.js';

/** What the leaderboard administration routes use. */
export interface AdminLeaderboardDeps {
  guard: AdminGuard;
  leaderboards: LeaderboardService;
  projects: ProjectAdminService;
}

const NEEDS = `Needs \`leaderboard.manage\` (owner, editor). ${SCOPE}`;
const READS = `Needs \`document.view\` (every admin role). ${SCOPE}`;
const PREFIX = '/admin/projects/:project_id/leaderboards';
/** No user has this id: the admin reads a board as nobody, so a listing defaults to the lowest league. */
const NO_USER = 0;

/** Creating, editing, resetting boards and submitting stats for any user (§6). */
export function adminLeaderboardRoutes(app: HttpApp, deps: AdminLeaderboardDeps): void {
  const { leaderboards } = deps;
  decorateAdminRequests(app);
  const onRequest = inProject(deps.guard, ADMIN_PERMISSIONS.leaderboardManage);
  const read = inProject(deps.guard, ADMIN_PERMISSIONS.documentView);

  app.get(
    PREFIX,
    adminRoute(read, {
      description: `Every leaderboard of the project with its leagues, rewards and current period, by slug. ${READS}`,
      params: ProjectParams,
      response: { 200: BoardsSchema, ...errorResponses },
    }),
    async (request) => ({ leaderboards: (await leaderboards.admin.list(request.projectId)).map(boardView) }),
  );

  app.post(
    PREFIX,
    adminRoute(onRequest, {
      description:
        'Creates a leaderboard (defaults: CONTINUOUS, desc, best, reset none, one league `global`, client_submit ' +
        'true, no stat_min/stat_max, no tournament settings: join_required false, no limits, always open); its ' +
        'first period is the one containing now. 409 when the slug is taken; 422 for an invalid definition (also ' +
        'stat_min > stat_max, ends_at not after starts_at, max_participants without join_required, a limit < 1). ' +
        NEEDS,
      params: ProjectParams,
      body: CreateBoardBody,
      response: { 201: BoardSchema, ...adminConflictResponses },
    }),
    async (request, reply) =>
      reply.status(201).send(boardView(await leaderboards.create(request.projectId, definitionOf(request.body)))),
  );

  app.get(
    `${PREFIX}/:slug`,
    adminRoute(read, {
      description: `One leaderboard's definition and current period; 404 \`Leaderboard not found\`. ${READS}`,
      params: BoardParams,
      response: { 200: BoardSchema, ...errorResponses },
    }),
    async (request) => boardView(await leaderboards.admin.get(request.projectId, request.params.slug)),
  );

  app.get(
    `${PREFIX}/:slug/users`,
    adminRoute(read, {
      description:
        'The standings of a league, one page, as GET /leaderboards/{slug}/users (`league` defaults to the lowest); ' +
        `with \`user_ids=3,9,12\` (1 to 100 ids) only those users of the league, in rank order (§18). ${READS}`,
      params: BoardParams,
      querystring: UsersQuery,
      response: { 200: UsersListSchema, ...errorResponses },
    }),
    (request) => leaderboards.users(request.projectId, NO_USER, request.params.slug, request.query),
  );

  app.get(
    `${PREFIX}/:slug/around`,
    adminRoute(read, {
      description:
        'The window around the user `user_id` in that user’s league, as GET /leaderboards/{slug}/around answers a ' +
        'server key (§18): `{league, me, users}`, `2 × radius + 1` ranked users (radius 1–50, default 5), the bottom ' +
        `\`radius + 1\` when the user has no stat; 404 \`User not found\` for a user not of the project. ${READS}`,
      params: BoardParams,
      querystring: AdminAroundQuery,
      response: { 200: AroundSchema, ...errorResponses },
    }),
    // The admin names the user as a server key does on the client route: the same read, the same checks.
    (request) =>
      leaderboards.players.around(
        request.projectId,
        { kind: 'server_key', userId: request.query.user_id },
        request.params.slug,
        request.query,
      ),
  );

  app.get(
    `${PREFIX}/:slug/history`,
    adminRoute(read, {
      description: `Archived final standings of a period, as GET /leaderboards/{slug}/history (\`league\` defaults to the lowest; \`me\` is null). ${READS}`,
      params: BoardParams,
      querystring: HistoryQuery,
      response: { 200: HistorySchema, ...errorResponses },
    }),
    (request) => leaderboards.history(request.projectId, NO_USER, request.params.slug, request.query),
  );

  app.patch(
    `${PREFIX}/:slug`,
    adminRoute(onRequest, {
      description:
        'Edits name, description, operator, leagues, rewards, client_submit, stat_min, stat_max and/or the ' +
        'tournament settings join_required, max_participants, max_submissions, starts_at, ends_at (leagues and ' +
        'rewards are replaced whole; a null bound, limit or window end removes it; stat_min > stat_max or ends_at ' +
        'not after starts_at → 422; joins and counts made stay). ' +
        'type, sort and reset cannot change (400). Current entries are re-homed: by stat on CONTINUOUS boards, ' +
        `to the lowest league when theirs is gone on AT_RESET boards. ${NEEDS}`,
      params: BoardParams,
      body: UpdateBoardBody,
      response: { 200: BoardSchema, ...errorResponses },
    }),
    async (request) => {
      const board = await leaderboards.admin.get(request.projectId, request.params.slug);
      const updated = await leaderboards.admin.update(request.projectId, board.slug, editOf(board, request.body));
      return boardView(updated);
    },
  );

  app.post(
    `${PREFIX}/:slug/stats`,
    adminRoute(onRequest, {
      description:
        'Submits a stat for any user of the project, with the board’s operator, as a game server would (also on ' +
        'boards with client_submit false; trusted: a tournament’s window, join and limit do not apply and it does ' +
        'not count); answers that user’s `me`. 422 for a value outside [stat_min, stat_max]. ' +
        `404 \`User not found\` / \`Leaderboard not found\`. ${NEEDS}`,
      params: BoardParams,
      body: AdminSubmitBody,
      response: { 200: MeSchema, ...errorResponses, 503: ErrorSchema },
    }),
    (request) =>
      deps.projects.submitStat(request.projectId, request.params.slug, request.body.user_id, request.body.value),
  );

  app.post(
    `${PREFIX}/:slug/reset`,
    adminRoute(onRequest, {
      description:
        'Ends the current period now and resets the board as its schedule would (final standings archived with ' +
        'rewards, AT_RESET promotion and demotion, entries cleared). The next period runs from now to the end the ' +
        `schedule gives. 409 while another reset of the board runs. ${NEEDS}`,
      params: BoardParams,
      body: NoBody,
      response: { 200: ResetSchema, ...adminConflictResponses },
    }),
    async (request) => {
      const { archived, current } = await leaderboards.admin.resetNow(request.projectId, request.params.slug);
      return {
        archived: { start: isoTime(archived.start), end: isoTime(archived.end) },
        leaderboard: boardView(current),
      };
    },
  );
}
