/** Admin roles and what each may do (§6): one table, checked by every admin route. */

/** The role of an admin within their organisation. */
export type AdminRole = 'owner' | 'editor' | 'viewer';

/** Every admin role, from most to least powerful. */
export const ADMIN_ROLES: readonly AdminRole[] = ['owner', 'editor', 'viewer'];

/** The permissions admin routes check. */
export const ADMIN_PERMISSIONS = {
  /** Read the admin document store. */
  documentView: 'document.view',
  /** Write the admin document store. */
  documentManage: 'document.manage',
  /** Create and edit leaderboards, submit stats for users, reset now. */
  leaderboardManage: 'leaderboard.manage',
  /** List and edit users and roles. */
  userManage: 'user.manage',
  /** Set a project's access rules (§9); reading and testing them needs any admin role. */
  rulesManage: 'rules.manage',
  /** Create projects, issue clients and rotate client secrets (secrets of the whole project). */
  projectManage: 'project.manage',
} as const;

/** One admin permission. */
export type AdminPermission = (typeof ADMIN_PERMISSIONS)[keyof typeof ADMIN_PERMISSIONS];

/**
 * What each role holds. `owner` holds everything; `editor` the four permissions §6 names and
 * `rules.manage` (§9); `viewer` reads documents. Projects and client secrets (`project.manage`)
 * are the owner's alone: a client secret opens every player's data, so editing content does not
 * imply it.
 */
export const ROLE_PERMISSIONS: Readonly<Record<AdminRole, readonly AdminPermission[]>> = {
  owner: Object.values(ADMIN_PERMISSIONS),
  editor: [
    ADMIN_PERMISSIONS.documentView,
    ADMIN_PERMISSIONS.documentManage,
    ADMIN_PERMISSIONS.leaderboardManage,
    ADMIN_PERMISSIONS.userManage,
    ADMIN_PERMISSIONS.rulesManage,
  ],
  viewer: [ADMIN_PERMISSIONS.documentView],
};

/** True when the role holds the permission. */
export function roleHolds(role: AdminRole, permission: AdminPermission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}

/** True when `value` names an admin role. */
export function isAdminRole(value: string): value is AdminRole {
  return (ADMIN_ROLES as readonly string[]).includes(value);
}
