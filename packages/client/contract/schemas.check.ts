/**
 * Compile-time proof that the SDK's wire types equal the server's TypeBox schemas. Type-only:
 * nothing here is emitted or bundled; the root `tsc --noEmit` (npm run lint) checks it, so a
 * change to `src/http/schemas` that the SDK does not follow fails the lint.
 */
import type { Static } from 'typebox';
import type * as ws from '../../../src/http/asyncapi.js';
import type * as auth from '../../../src/http/schemas/auth.js';
import type * as common from '../../../src/http/schemas/common.js';
import type * as documents from '../../../src/http/schemas/documents.js';
import type * as boards from '../../../src/http/schemas/leaderboards.js';
import type * as tournaments from '../../../src/http/schemas/tournaments.js';
import type * as sdk from '../src/types.js';

/** `true` only when A and B are assignable both ways. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Check<T extends true> = T;

export type Contract = [
  Check<Same<sdk.AuthUser, Static<typeof auth.AuthUserSchema>>>,
  Check<Same<sdk.AuthResponse, Static<typeof auth.AuthResponseSchema>>>,
  Check<Same<sdk.Me, Static<typeof auth.MeSchema>>>,
  Check<Same<sdk.SignUpInput, Static<typeof auth.SignupBody>>>,
  Check<Same<sdk.LogInInput, Static<typeof auth.LoginBody>>>,
  Check<Same<sdk.ProfileInput, Static<typeof auth.UpdateMeBody>>>,
  Check<Same<sdk.ErrorBody, Static<typeof common.ErrorSchema>>>,
  Check<Same<sdk.Document, Static<typeof documents.DocumentSchema>>>,
  Check<Same<sdk.DocumentWithCollections, Static<typeof documents.DocumentWithCollectionsSchema>>>,
  Check<Same<sdk.DocumentWithCreated, Static<typeof documents.DocumentWithCreatedSchema>>>,
  Check<Same<{ documents: sdk.Document[] }, Static<typeof documents.DocumentListSchema>>>,
  Check<Same<{ writes: sdk.BatchWrite[] }, Static<typeof documents.BatchBody>>>,
  Check<Same<sdk.BatchResult, Static<typeof documents.BatchResultSchema>>>,
  Check<Same<sdk.LeaderboardMe, Static<typeof boards.MeSchema>>>,
  Check<Same<sdk.LeaderboardUsers, Static<typeof boards.UsersListSchema>>>,
  Check<Same<sdk.LeaderboardBundle, Static<typeof boards.BundleSchema>>>,
  Check<Same<sdk.LeaderboardJoin, Static<typeof tournaments.JoinSchema>>>,
  Check<Same<sdk.LeaderboardList, Static<typeof tournaments.BoardListSchema>>>,
  Check<Same<sdk.LeaderboardUsersQuery, Static<typeof boards.UsersQuery>>>,
  Check<Same<sdk.LeaderboardAroundQuery, Static<typeof boards.AroundQuery>>>,
  Check<Same<sdk.LeaderboardAround, Static<typeof boards.AroundSchema>>>,
  Check<Same<sdk.LeaderboardHistoryOptions, Static<typeof boards.MyHistoryQuery>>>,
  Check<Same<sdk.LeaderboardMyHistory, Static<typeof boards.MyHistorySchema>>>,
  Check<Same<sdk.ListenDocumentMessage, Static<typeof ws.ListenDocumentMessage>>>,
  Check<Same<sdk.ListenQueryMessage, Static<typeof ws.ListenQueryMessage>>>,
  Check<Same<sdk.ListenerChangeWire, Static<typeof ws.ListenerChange>>>,
  Check<Same<sdk.SnapshotEvent, Static<typeof ws.SnapshotEvent>>>,
  Check<Same<sdk.ChangesEvent, Static<typeof ws.ChangesEvent>>>,
  Check<Same<sdk.OnDisconnectMessage, Static<typeof ws.OnDisconnectMessage>>>,
];
