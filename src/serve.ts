/**
 * One serving process: the whole service when CDS_WORKERS=1, or one worker of the cluster
 * (`primary.ts` forks them). It builds the app, listens, and drains on SIGTERM/SIGINT: HTTP
 * stops accepting, sockets close with 1001, in-flight requests finish, storage closes, exit 0.
 */
import { buildApp } from './app.js';
import type { FromRelay, ToRelay } from './bus/ipc-messages.js';
import { nodeIpcEndpoint } from './bus/ipc-messages.js';
import type { Config } from './config.js';
import { announceFirstStart, REDIS_WITHOUT_SECRET } from './first-start.js';
import { markServing } from './serving-marker.js';

/** `alone`: the only process (prepares the database, marks it served). `worker`: one of the cluster's. */
export type ServingRole = 'alone' | 'worker';

export async function serve(config: Config, role: ServingRole): Promise<void> {
  // Workers without Redis broadcast through the primary; with Redis they use it like any instance.
  const ipc = role === 'worker' && !config.redisUrl ? nodeIpcEndpoint<ToRelay, FromRelay>(process) : undefined;
  const app = await buildApp(config, ipc ? { ipc } : {});
  const log = app.http.log;
  if (role === 'alone') {
    // The embedded database's directory is marked while served: `cds restore` refuses it meanwhile.
    const unmark = config.databaseUrl ? () => undefined : markServing(config.dataDir);
    process.on('exit', unmark);
    if (config.redisUrl && !config.jwtSecret) log.warn(REDIS_WITHOUT_SECRET);
    await announceFirstStart(app.services, config);
  }

  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal: reason }, 'shutting down');
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
  // A worker whose primary is gone (killed) has no bus and no one to restart it: it drains too.
  if (role === 'worker') process.on('disconnect', () => void stop('primary gone'));

  await app.http.listen({ port: config.port, host: config.host });
}
