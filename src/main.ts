/** Entry point: the only reader of process.env. Starts the service and drains it on SIGTERM. */
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { markServing } from './serving-marker.js';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const app = await buildApp(config);
  const log = app.http.log;
  // The embedded database's directory is marked while served: `cds restore` refuses it meanwhile.
  const unmark = config.databaseUrl ? () => undefined : markServing(config.dataDir);
  process.on('exit', unmark);
  if (config.redisUrl && !config.jwtSecret) {
    log.warn("REDIS_URL is set without CDS_JWT_SECRET: instances that do not share one key refuse each other's tokens");
  }

  const first = await app.services.accounts.bootstrapIfEmpty();
  if (first) {
    const owner = await app.services.admins.createFirstOwner(first.org_id);
    // Printed once, on the first start with an empty database; later starts never print it.
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
        `  curl -X POST http://${config.host}:${config.port}/auth/signup -H 'content-type: application/json' \\`,
        `    -H 'x-client-id: ${first.client_id}' -H 'x-client-secret: <client_secret>' \\`,
        `    -d '{"username":"player1","password":"correct horse"}'`,
        'Sign in as the admin (then `Authorization: Bearer <access_token>` on /admin and /document-store):',
        `  curl -X POST http://${config.host}:${config.port}/admin/auth/login -H 'content-type: application/json' \\`,
        `    -d '{"email":"${owner.email}","password":"<password>"}'`,
        '',
      ].join('\n'),
    );
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    try {
      await app.close();
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  await app.http.listen({ port: config.port, host: config.host });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
