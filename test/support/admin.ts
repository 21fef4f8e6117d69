/** Admins for tests: created through the service (as `cds admin create` does) and signed in over HTTP. */
import type { AdminRole } from '../../src/core/admin/admin-permissions.js';
import type { TestApp } from './app.js';

/** A signed-in admin. */
export interface TestAdmin {
  id: number;
  orgId: number;
  email: string;
  role: AdminRole;
  token: string;
  /** `Authorization: Bearer <admin token>`. */
  headers: Record<string, string>;
}

export const ADMIN_PASSWORD = 'admin-password-1';

let counter = 0;

/** Creates an admin of `orgId` with `role` and signs them in through `POST /admin/auth/login`. */
export async function createAdmin(t: Pick<TestApp, 'app'>, orgId: number, role: AdminRole): Promise<TestAdmin> {
  counter += 1;
  const email = `${role}${counter}@org${orgId}.example`;
  const created = await t.app.services.admins.createAdmin(orgId, { email, password: ADMIN_PASSWORD, role });
  const login = await t.app.http.inject({
    method: 'POST',
    url: '/admin/auth/login',
    payload: { email, password: ADMIN_PASSWORD },
  });
  if (login.statusCode !== 200) throw new Error(`admin login failed: ${login.statusCode} ${login.body}`);
  const token = login.json().access_token as string;
  return { id: created.id, orgId, email, role, token, headers: { authorization: `Bearer ${token}` } };
}

/** The organisation of a project. */
export async function orgOf(t: TestApp, projectId: number): Promise<number> {
  const project = await t.app.services.storage.accounts.getProject(projectId);
  if (!project) throw new Error(`no project ${projectId}`);
  return project.orgId;
}

/** The test app's project, an owner, editor and viewer of its organisation, and an owner of another organisation with its own project. */
export async function adminFixture(t: TestApp) {
  const orgId = await orgOf(t, t.project.projectId);
  const other = await t.otherProject();
  const otherOrgId = await orgOf(t, other.project.projectId);
  return {
    orgId,
    projectId: t.project.projectId,
    owner: await createAdmin(t, orgId, 'owner'),
    editor: await createAdmin(t, orgId, 'editor'),
    viewer: await createAdmin(t, orgId, 'viewer'),
    /** An owner of the other organisation: a stranger to the test app's project. */
    stranger: await createAdmin(t, otherOrgId, 'owner'),
    other: { orgId: otherOrgId, projectId: other.project.projectId, headers: other.headers },
  };
}
