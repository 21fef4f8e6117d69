import type { Admin, ServerKeyRole } from './admin-store.js';

/** A signed-in admin as the caller of an admin route. */
export interface AdminAccountCaller extends Admin {
  kind: 'admin';
}

/**
 * A server key as the caller of an admin route (§9): the key's role within its organisation,
 * confined to its one project (`requireProject` answers 404 for any other).
 */
export interface ServerKeyCaller {
  kind: 'server_key';
  keyId: number;
  orgId: number;
  projectId: number;
  role: ServerKeyRole;
}

/** Who an admin route runs for: the permission and tenant checks read only `orgId` and `role`. */
export type AdminCaller = AdminAccountCaller | ServerKeyCaller;
