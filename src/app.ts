import { Redis } from 'ioredis';
import { openBus, openStorage, type PrimaryChannel } from './adapters.js';
import type { Config } from './config.js';
import type { Bus } from './core/bus.js';
import type { Clock } from './core/clock.js';
import type { QueryStatsSink } from './core/documents/query-stats.js';
import type { FunctionRegistry } from './core/functions/function-registry.js';
import type { Storage } from './core/ports.js';
import type { RulesSource } from './core/rules/rules-source.js';
import type { WebhookDeliveryOptions } from './core/webhooks/webhook-delivery.js';
import { loadFunctions } from './functions/load-functions.js';
import { Metrics, metricsRoutes } from './http/metrics.js';
import type { RateLimits } from './http/rate-limit.js';
import { adminAuthRoutes } from './http/routes/admin-auth.js';
import { adminDocumentRoutes } from './http/routes/admin-documents.js';
import { adminFunctionRoutes } from './http/routes/admin-functions.js';
import { adminIndexRoutes } from './http/routes/admin-indexes.js';
import { adminLeaderboardRoutes } from './http/routes/admin-leaderboards.js';
import { adminProjectDataRoutes } from './http/routes/admin-project-data.js';
import { adminProjectRoutes } from './http/routes/admin-projects.js';
import { adminRulesRoutes } from './http/routes/admin-rules.js';
import { adminServerKeyRoutes } from './http/routes/admin-server-keys.js';
import { adminTtlRoutes } from './http/routes/admin-ttl.js';
import { adminWebhookRoutes } from './http/routes/admin-webhooks.js';
import { authRoutes } from './http/routes/auth.js';
import { documentRoutes } from './http/routes/documents.js';
import { functionRoutes } from './http/routes/functions.js';
import { healthRoutes } from './http/routes/health.js';
import { leaderboardPlayerRoutes } from './http/routes/leaderboard-players.js';
import { leaderboardTournamentRoutes } from './http/routes/leaderboard-tournaments.js';
import { leaderboardRoutes } from './http/routes/leaderboards.js';
import { realtimeRoutes } from './http/routes/realtime.js';
import { createHttpApp, type HttpApp, type HttpOptions } from './http/server.js';
import { type BackgroundLog, createServices, type Services } from './services.js';
import { registerAdminRealtime } from './ws/admin-realtime.js';
import { RealtimeGateway } from './ws/realtime-gateway.js';

/** A built service: its HTTP app and what it holds open. */
export interface App {
  http: HttpApp;
  services: Services;
  /** The WebSocket gateway (§4). */
  realtime: RealtimeGateway;
  metrics: Metrics;
  /** Stops the HTTP app and closes storage. */
  close(): Promise<void>;
}

/** A Redis connection to count rate limits in, when limits are on and REDIS_URL is set (§14). */
async function rateLimitCounter(config: Config): Promise<Pick<RateLimits, 'redis'>> {
  const { perClient, perIp } = config.rateLimits;
  if (!config.redisUrl || (perClient === 0 && perIp === 0)) return {};
  // Like the bus: commands fail at once while Redis is away (the limiter then lets requests through).
  const client = new Redis(config.redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectionName: 'cds-rate-limit',
  });
  client.on('error', () => undefined);
  // Counting starts once connected; a Redis that stays away lets requests through until it is back.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 10_000);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return { redis: { client, prefix: config.redisPrefix } };
}

/** Builds the whole service; pass `storage` to use an engine opened elsewhere (tests). */
export async function buildApp(
  config: Config,
  options: {
    storage?: Storage;
    logger?: HttpOptions['logger'];
    clock?: Clock;
    rules?: RulesSource;
    /** Set in a cluster worker (CDS_WORKERS > 1): the bus goes through the primary unless Redis is configured. */
    ipc?: PrimaryChannel;
    /** The server functions (§16); default: the modules of `CDS_FUNCTIONS_DIR`, loaded before anything opens. */
    functions?: FunctionRegistry;
    /** Webhook delivery's retry times (§16); tests shorten them. */
    webhookDelivery?: WebhookDeliveryOptions;
  } = {},
): Promise<App> {
  const functions = options.functions ?? (await loadFunctions(config.functions.dir));
  const storage = options.storage ?? (await openStorage(config));
  const http = await createHttpApp({
    bodyLimit: config.bodyLimit,
    corsOrigins: config.corsOrigins,
    logLevel: config.logLevel,
    logger: options.logger,
    rateLimits: { ...config.rateLimits, ...(await rateLimitCounter(config)) },
  });
  const log: BackgroundLog = (err, message) => (err ? http.log.warn({ err }, message) : http.log.info(message));
  let bus: Bus;
  try {
    bus = await openBus(config, log, options.ipc);
  } catch (error) {
    await http.close();
    if (!options.storage) await storage.close();
    throw error;
  }
  const metrics = new Metrics();
  const queryStats: QueryStatsSink = {
    rowsScanned: (collection, rows) => metrics.queryRowsScanned.inc({ collection }, rows),
    warn: (details) =>
      http.log.warn(
        details,
        `query on collection '${details.collection}' read ${details.scanned} rows to return ${details.returned}: an index on its fields would avoid the scan`,
      ),
  };
  const services = createServices(config, storage, {
    bus,
    log,
    queryStats,
    functions,
    functionObserver: metrics,
    consumerObserver: metrics,
    logger: http.log,
    disconnect: { log: http.log, observer: metrics },
    ...(options.webhookDelivery ? { webhookDelivery: options.webhookDelivery } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.rules ? { rules: options.rules } : {}),
  });
  metricsRoutes(http, metrics);
  healthRoutes(http, { storage, bus });
  authRoutes(http, { auth: services.auth });
  documentRoutes(http, { auth: services.auth, documents: services.clientDocuments });
  realtimeRoutes(http, { auth: services.auth, tree: services.tree });
  leaderboardRoutes(http, { auth: services.auth, leaderboards: services.leaderboards });
  leaderboardTournamentRoutes(http, { auth: services.auth, leaderboards: services.leaderboards });
  leaderboardPlayerRoutes(http, { auth: services.auth, guard: services.admins, leaderboards: services.leaderboards });
  functionRoutes(http, {
    auth: services.auth,
    guard: services.admins,
    functions: services.functions,
    rolesOf: (projectId, userId) => services.auth.rolesOf(projectId, userId),
  });
  // Closing HTTP (also how tests stop an app) stops the reset schedule and any warm-up.
  http.addHook('onClose', async () => {
    // After the sockets closed (preClose) and their on-disconnect writes ran.
    await services.disconnectOps.stop();
    await services.consumers.stop();
    await services.schedules.stop();
    await services.ttlSweeper.stop();
    await services.leaderboards.stop();
    await services.rules.close();
    await services.indexes.close();
    await services.ttl.close();
  });
  const guard = services.admins;
  adminAuthRoutes(http, { admins: services.admins });
  adminDocumentRoutes(http, { guard, documents: services.documents });
  adminProjectRoutes(http, { guard, projects: services.projectAdmin });
  adminServerKeyRoutes(http, { guard, keys: services.serverKeys });
  adminWebhookRoutes(http, { guard, webhooks: services.webhooks });
  adminLeaderboardRoutes(http, { guard, leaderboards: services.leaderboards, projects: services.projectAdmin });
  adminRulesRoutes(http, { guard, rules: services.rules, tester: services.rulesTester });
  adminIndexRoutes(http, { guard, indexes: services.indexes, documents: services.documents });
  adminTtlRoutes(http, { guard, ttl: services.ttl });
  adminProjectDataRoutes(http, { guard, documents: services.documents, tree: services.tree });
  adminFunctionRoutes(http, {
    guard,
    modules: () => functions.list(),
    calls: (projectId) => metrics.functionCallCounts(projectId),
  });
  const realtime = new RealtimeGateway(
    services.tree,
    services.bus,
    {
      pathLimits: config.pathLimits,
      maxSubscriptions: config.realtime.maxSubscriptions,
      maxBufferedBytes: config.realtime.wsMaxBufferedBytes,
      maxPayload: config.bodyLimit,
      heartbeatMs: config.realtime.wsHeartbeatSeconds * 1000,
      functions: services.functions,
      disconnectOps: services.disconnectOps,
    },
    http.log,
    services.listeners,
  );
  await realtime.register(http, services.auth);
  await registerAdminRealtime(http, realtime, guard);
  await http.ready();
  await services.rules.listen();
  await services.indexes.listen();
  await services.ttl.listen();
  // Declarations a process that died left `building` are built again, in the background (§15).
  services.indexes.resume().catch((err: unknown) => http.log.error({ err }, 'resuming index builds failed'));
  // Before the warm-up: a move another instance makes while a bucket loads is then replayed into it.
  await services.leaderboards.listen();
  // Ranks load in the background; a request for a league still loading waits for that league only.
  services.leaderboards.start(config.leaderboards.resetCheckMs, (err) =>
    http.log.error({ err }, 'leaderboard reset failed'),
  );
  services.leaderboards.warm().catch((err: unknown) => http.log.error({ err }, 'leaderboard warm-up failed'));
  services.consumers.start();
  services.ttlSweeper.start();
  services.schedules.start();
  services.disconnectOps.start();
  return {
    http,
    services,
    realtime,
    metrics,
    async close() {
      // Closing HTTP closes every WebSocket with 1001 first (the gateway's preClose).
      await http.close();
      await services.leaderboards.stop();
      await services.rules.close();
      await services.indexes.close();
      await services.bus.close();
      await storage.close();
    },
  };
}
