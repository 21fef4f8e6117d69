/**
 * The first start on an empty database: creates an organisation, a project, a client and an
 * owner admin, and prints their credentials once (later starts print nothing). Run by the one
 * process that prepares the database: the single process, or the cluster primary before it
 * forks its workers.
 */

import type { Config } from './config.js';
import type { Services } from './services.js';

/** Creates the first organisation and owner when the database is empty, and prints how to use them. */
export async function announceFirstStart(
  services: Pick<Services, 'accounts' | 'admins'>,
  config: Pick<Config, 'host' | 'port'>,
): Promise<void> {
  const first = await services.accounts.bootstrapIfEmpty();
  if (!first) return;
  const owner = await services.admins.createFirstOwner(first.org_id);
  const base = `http://${config.host}:${config.port}`;
  process.stdout.write(
    [
      '',
      'First start: created an organisation, a project, a client and an owner admin.',
      `  org_id:         ${first.org_id}`,
      `  project_id:     ${first.project_id}`,
      `  client_id:      ${first.client_id}`,
      `  client_secret:  ${first.client_secret}   (shown once; store it now)`,
      'The owner admin (email, then password; shown once, store it now; sign in at /console or as below):',
      `owner: ${owner.email} ${owner.password}`,
      'Sign a player up:',
      `  curl -X POST ${base}/auth/signup -H 'content-type: application/json' \\`,
      `    -H 'x-client-id: ${first.client_id}' -H 'x-client-secret: <client_secret>' \\`,
      `    -d '{"username":"player1","password":"correct horse"}'`,
      'Sign in as the admin (then `Authorization: Bearer <access_token>` on /admin and /document-store):',
      `  curl -X POST ${base}/admin/auth/login -H 'content-type: application/json' \\`,
      `    -d '{"email":"${owner.email}","password":"<password>"}'`,
      '',
    ].join('\n'),
  );
}

/** The warning of a deployment whose instances would not share a token key. */
export const REDIS_WITHOUT_SECRET =
  "REDIS_URL is set without CDS_JWT_SECRET: instances that do not share one key refuse each other's tokens";
