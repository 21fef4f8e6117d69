/** The permissions client routes check (§1), one per area. */
export const CLIENT_PERMISSIONS = {
  documents: 'client.documents',
  realtime: 'client.realtime',
  leaderboard: 'client.leaderboard',
  leaderboardSubmit: 'client.leaderboard.submit',
  /** Calling the project's server functions (§16). */
  functions: 'client.functions',
} as const;

/** The role every new project gets and every new user holds unless told otherwise (§1). */
export const PLAYER_ROLE = 'player';

/** The permissions of the `player` role of a new project. */
export const PLAYER_PERMISSIONS: readonly string[] = Object.freeze([
  CLIENT_PERMISSIONS.documents,
  CLIENT_PERMISSIONS.realtime,
  CLIENT_PERMISSIONS.leaderboard,
  CLIENT_PERMISSIONS.leaderboardSubmit,
  CLIENT_PERMISSIONS.functions,
]);
