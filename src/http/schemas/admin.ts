/** TypeBox schemas of the admin API and the admin document store (§6). */
import Type from 'typebox';
import { MAX_ID } from '../../core/admin/admin-service.js';
import { BoardFieldsSchema, TournamentFieldsSchema } from '../../core/leaderboards/board-record.js';
import { Nullable } from '../../core/nullable-schema.js';
import { AvatarUrl, Nickname, userProfileFields } from './auth.js';
import { ErrorSchema, errorResponses } from './common.js';
import { DocumentSchema } from './documents.js';
import { AroundQuery, BoardSchema } from './leaderboards.js';

const Id = (description: string) => Type.String({ description: `${description} (a positive integer)` });

/** Error responses of admin routes that also answer 409. */
export const adminConflictResponses = { ...errorResponses, 409: ErrorSchema };

/** The OpenAPI security of admin routes: `Authorization: Bearer <admin token>`. */
export const adminSecurity = [{ bearer: [] }];

/** A body for routes that take none (a POST that only acts); unknown fields are ignored. */
export const NoBody = Type.Object({}, { description: 'No fields; the body may be left out' });

export const AdminLoginBody = Type.Object({ email: Type.String(), password: Type.String() });

export const AdminTokenSchema = Type.Object({
  access_token: Type.String({ description: 'HS256 JWT: sub = admin id, typ = "admin", iat, exp' }),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the token expires' }),
});

const AdminRoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('editor'), Type.Literal('viewer')]);

export const AdminMeSchema = Type.Object({
  id: Type.Integer(),
  org_id: Type.Integer(),
  email: Type.String(),
  role: AdminRoleSchema,
  permissions: Type.Array(Type.String()),
});

export const OrgParams = Type.Object({ org_id: Id('Organisation id') });
export const ProjectParams = Type.Object({ project_id: Id('Project id') });
export const ClientParams = Type.Object({ project_id: Id('Project id'), client_id: Type.String() });
export const UserParams = Type.Object({ project_id: Id('Project id'), user_id: Id('User id') });
export const RoleParams = Type.Object({ project_id: Id('Project id'), name: Type.String() });
export const BoardParams = Type.Object({ project_id: Id('Project id'), slug: Type.String() });
export const ProjectCollectionParams = Type.Object({ project_id: Id('Project id'), collection: Type.String() });
export const ProjectTreeParams = Type.Object({ project_id: Id('Project id'), '*': Type.Optional(Type.String()) });

/** `/document-store/{org_id}/{project_id}`. */
export const StoreParams = Type.Object({ org_id: Id('Organisation id'), project_id: Id('Project id') });
export const StoreDocParams = Type.Object({ ...StoreParams.properties, '*': Type.Optional(Type.String()) });
export const StoreCollectionParams = Type.Object({ ...StoreParams.properties, collection: Type.String() });

const paging = {
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'Page number, from 1 (default 1)' })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Items per page (default 20)' })),
};
const pageInfo = { page: Type.Integer(), page_size: Type.Integer(), total: Type.Integer() };

export const PageQuery = Type.Object(paging);
export const StorePageQuery = Type.Object({
  parent_path: Type.Optional(Type.String({ description: 'A document path; default the root' })),
  ...paging,
});

export const CollectionsPageSchema = Type.Object({ collections: Type.Array(Type.String()), ...pageInfo });
export const DocumentsPageSchema = Type.Object({ documents: Type.Array(DocumentSchema), ...pageInfo });

export const ProjectSchema = Type.Object({ id: Type.Integer(), org_id: Type.Integer(), name: Type.String() });
export const ProjectsSchema = Type.Object({ projects: Type.Array(ProjectSchema) });
export const CreateProjectBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) });
export const ProjectCredentialsSchema = Type.Object({
  org_id: Type.Integer(),
  project_id: Type.Integer(),
  client_id: Type.String(),
  client_secret: Type.String({ description: 'Shown this once; only its hash is stored' }),
});

export const ClientsSchema = Type.Object({
  clients: Type.Array(Type.Object({ client_id: Type.String(), created_at: Type.String() })),
});
export const ClientCredentialsSchema = Type.Object({
  client_id: Type.String(),
  client_secret: Type.String({ description: 'Shown this once; only its hash is stored' }),
});

export const UserSchema = Type.Object({
  ...userProfileFields,
  roles: Type.Array(Type.String()),
  disabled: Type.Boolean({ description: 'A disabled user cannot sign in, refresh or use its tokens' }),
});
export const UsersPageSchema = Type.Object({ users: Type.Array(UserSchema), ...pageInfo });
export const UpdateUserBody = Type.Object({
  nickname: Type.Optional(Nickname),
  avatar_url: Type.Optional(AvatarUrl),
  roles: Type.Optional(Type.Array(Type.String(), { description: 'Exactly these roles; each must exist' })),
  disabled: Type.Optional(
    Type.Boolean({
      description:
        'true: login and guest sign-in answer 401 `Account disabled`, refresh tokens are dropped, access tokens are ' +
        'refused within 10 s and open sockets closed with 1008. false: enabled again; tokens issued before the ' +
        'disable stay refused.',
    }),
  ),
});

export const ServerKeyParams = Type.Object({ project_id: Id('Project id'), key_id: Id('Server key id') });
const ServerKeyRoleSchema = Type.Union([Type.Literal('editor'), Type.Literal('viewer')], {
  description: 'The admin role whose permissions the key holds, within its project only',
});
export const CreateServerKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  role: ServerKeyRoleSchema,
});
const serverKeyFields = {
  id: Type.Integer(),
  name: Type.String(),
  role: ServerKeyRoleSchema,
  created_at: Type.String({ description: 'ISO 8601' }),
};
export const ServerKeySchema = Type.Object(serverKeyFields);
export const IssuedServerKeySchema = Type.Object({
  ...serverKeyFields,
  key: Type.String({ description: '`sk_` and 256 random bits; shown this once, only its SHA-256 is stored' }),
});
export const ServerKeysSchema = Type.Object({ server_keys: Type.Array(ServerKeySchema) });
export const DeletedServerKeySchema = Type.Object({ deleted: Type.Integer({ description: 'The revoked key’s id' }) });

export const RoleSchema = Type.Object({ name: Type.String(), permissions: Type.Array(Type.String()) });
export const RolesSchema = Type.Object({ roles: Type.Array(RoleSchema) });
export const CreateRoleBody = Type.Object({
  name: Type.String({ description: '1-64 letters, digits, _ . -' }),
  permissions: Type.Array(Type.String()),
});
export const UpdateRoleBody = Type.Object({ permissions: Type.Array(Type.String()) });

const { slug, description, type, sort, operator, reset } = BoardFieldsSchema.properties;

const LeagueInput = Type.Object({
  slug: Type.String(),
  name: Type.Optional(Type.String({ description: 'Default: the slug' })),
  order: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_ID, description: '0 = lowest; default: the position in the list' }),
  ),
  min_stat: Type.Optional(Nullable(Type.Number({ description: 'CONTINUOUS only' }))),
  promote_top: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_ID, description: 'AT_RESET only' }))),
  demote_bottom: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_ID, description: 'AT_RESET only' }))),
});
const RewardInput = Type.Object({
  league: Type.String(),
  rank_from: Type.Integer({ minimum: 1, maximum: MAX_ID }),
  rank_to: Type.Integer({ minimum: 1, maximum: MAX_ID }),
  reward: Type.Unknown({ description: 'Free JSON the game interprets' }),
});

/** Anti-cheat settings as sent: omitted on creation, the defaults (true, null, null); on an edit, unchanged. */
const antiCheatInput = {
  client_submit: Type.Optional(
    Type.Boolean({ description: 'false: only the admin route (server keys) submits, clients get 403; default true' }),
  ),
  stat_min: Type.Optional(
    Nullable(Type.Number({ description: 'Lowest accepted submitted value (inclusive); null (default): no bound' })),
  ),
  stat_max: Type.Optional(
    Nullable(
      Type.Number({
        description:
          'Highest accepted submitted value (inclusive); null (default): no bound; stat_min > stat_max → 422',
      }),
    ),
  ),
};

const Limit = (description: string) =>
  Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: MAX_ID, description: `${description}; null: no limit` })));
const { starts_at, ends_at } = TournamentFieldsSchema.properties;

/**
 * Tournament settings (§18) as sent: omitted on creation, none (join not required, no limits,
 * always open); on an edit, unchanged. Instants are ISO 8601 with a zone, shown back in UTC.
 */
const tournamentInput = {
  join_required: Type.Optional(
    Type.Boolean({ description: 'Players must join (POST /leaderboards/{slug}/join) each period; default false' }),
  ),
  max_participants: Limit('How many players may join a period (join_required boards only, else 422)'),
  max_submissions: Limit('How many submissions of a player count per period'),
  starts_at: Type.Optional(starts_at),
  ends_at: Type.Optional(ends_at),
};

export const CreateBoardBody = Type.Object({
  slug,
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(description),
  type: Type.Optional(type),
  sort: Type.Optional(sort),
  operator: Type.Optional(operator),
  reset: Type.Optional(reset),
  leagues: Type.Optional(Type.Array(LeagueInput, { description: 'Default: one league `global`' })),
  rewards: Type.Optional(Type.Array(RewardInput)),
  ...antiCheatInput,
  ...tournamentInput,
});

export const UpdateBoardBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1 })),
  description: Type.Optional(description),
  operator: Type.Optional(operator),
  leagues: Type.Optional(Type.Array(LeagueInput, { description: 'Replaces every league' })),
  rewards: Type.Optional(Type.Array(RewardInput, { description: 'Replaces every reward' })),
  ...antiCheatInput,
  ...tournamentInput,
  type: Type.Optional(type),
  sort: Type.Optional(sort),
  reset: Type.Optional(reset),
});

export const BoardsSchema = Type.Object({ leaderboards: Type.Array(BoardSchema) });

/** The window around a user as an admin reads it: the user is named, as a server key names it on the client route. */
export const AdminAroundQuery = Type.Object({
  ...AroundQuery.properties,
  user_id: Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'The user to centre on' }),
});

export const AdminSubmitBody = Type.Object({
  user_id: Type.Integer({ minimum: 1, maximum: MAX_ID }),
  value: Type.Number(),
});

export const ResetSchema = Type.Object({
  archived: Type.Object({ start: Type.String(), end: Type.String() }, { description: 'The period just ended' }),
  leaderboard: BoardSchema,
});
