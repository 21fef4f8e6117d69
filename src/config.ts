import Type, { type Static } from 'typebox';
import { Value } from 'typebox/value';

/** Every environment variable the service reads, with its default (the README's table). */
const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ default: '127.0.0.1' }),
  // One process by default: on 2 cores, a second worker served reads faster but every kind of write
  // slower (SQLite's one writer shared by two processes; PostgreSQL sharing the cores). BENCHMARKS.md.
  CDS_WORKERS: Type.Integer({ minimum: 1, maximum: 1024, default: 1 }),
  CDS_DATA_DIR: Type.String({ default: './data' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  CDS_DATABASE_SCHEMA: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,62}$' })),
  CDS_DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  CDS_JWT_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  CDS_REDIS_PREFIX: Type.String({ default: 'cds' }),
  CDS_LOG_LEVEL: Type.String({ pattern: '^(fatal|error|warn|info|debug|trace|silent)$', default: 'info' }),
  CDS_CORS_ORIGINS: Type.String({ minLength: 1, default: '*' }),
  CDS_BODY_LIMIT: Type.Integer({ minimum: 1024, default: 1024 * 1024 }),
  CDS_MAX_PATH_LENGTH: Type.Integer({ minimum: 1, default: 1024 }),
  CDS_MAX_PATH_SEGMENTS: Type.Integer({ minimum: 2, default: 64 }),
  CDS_RATE_LIMIT_PER_CLIENT: Type.Integer({ minimum: 0, default: 0 }),
  CDS_RATE_LIMIT_PER_IP: Type.Integer({ minimum: 0, default: 0 }),
  CDS_RATE_LIMIT_WINDOW_MS: Type.Integer({ minimum: 1000, default: 60_000 }),
  CDS_ACCESS_TOKEN_TTL: Type.Integer({ minimum: 60, default: 3600 }),
  CDS_REFRESH_TOKEN_TTL: Type.Integer({ minimum: 60, default: 30 * 24 * 3600 }),
  CDS_ADMIN_TOKEN_TTL: Type.Integer({ minimum: 60, default: 3600 }),
  CDS_REALTIME_MAX_SUBSCRIPTIONS: Type.Integer({ minimum: 1, default: 256 }),
  CDS_REALTIME_LOG_MAX_WRITES: Type.Integer({ minimum: 1, default: 10_000 }),
  CDS_REALTIME_LOG_MAX_AGE: Type.Integer({ minimum: 1, default: 600 }),
  CDS_REALTIME_READ_CACHE_MB: Type.Integer({ minimum: 0, maximum: 65_536, default: 64 }),
  CDS_WS_MAX_BUFFER: Type.Integer({ minimum: 65_536, default: 8 * 1024 * 1024 }),
  CDS_WS_HEARTBEAT_S: Type.Optional(Type.Integer({ minimum: 1 })),
  // Deprecated: the name of CDS_WS_HEARTBEAT_S before §17, read when the new name is not set.
  CDS_WS_PING_INTERVAL: Type.Optional(Type.Integer({ minimum: 1 })),
  CDS_INSTANCE_LEASE_MS: Type.Integer({ minimum: 1000, default: 15_000 }),
  CDS_LEADERBOARD_RESET_CHECK_MS: Type.Integer({ minimum: 0, default: 1000 }),
  CDS_LEADERBOARD_RESET_LEASE_MS: Type.Integer({ minimum: 1000, default: 300_000 }),
  CDS_FUNCTIONS_DIR: Type.String({ default: 'functions' }),
  CDS_FUNCTION_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 10_000 }),
  CDS_HOOK_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 1000 }),
  CDS_EVENT_RETENTION_H: Type.Integer({ minimum: 1, default: 72 }),
  CDS_EVENT_LEASE_MS: Type.Integer({ minimum: 1000, default: 20_000 }),
});

type Env = Static<typeof EnvSchema>;

/** Which browser origins may call the service: every origin, a list, or none (no CORS headers). */
export type CorsOrigins = '*' | 'off' | string[];

/** `CDS_CORS_ORIGINS`: `*`, `off`, or a comma-separated list of origins (`https://game.example`). */
export function parseCorsOrigins(text: string): CorsOrigins {
  const trimmed = text.trim();
  if (trimmed === '*' || trimmed === 'off') return trimmed;
  return trimmed
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, ''))
    .filter((origin) => origin !== '');
}

/** The service's settings, read once from the environment. */
export interface Config {
  port: number;
  host: string;
  /** Processes serving the port (node:cluster); 1 = one process, no cluster primary. */
  workers: number;
  dataDir: string;
  databaseUrl: string | undefined;
  /** PostgreSQL schema to create (when missing) and use instead of the connection's default. */
  databaseSchema: string | undefined;
  /** PostgreSQL connections of this instance. */
  databasePoolSize: number;
  redisUrl: string | undefined;
  /** Undefined means: generate one and keep it in the data directory. */
  jwtSecret: string | undefined;
  redisPrefix: string;
  logLevel: string;
  bodyLimit: number;
  /** Browser origins CORS allows: `*` (default), `off`, or a list. */
  corsOrigins: CorsOrigins;
  pathLimits: { maxLength: number; maxSegments: number };
  /** Requests per window per client id and per IP; 0 = unlimited. */
  rateLimits: { perClient: number; perIp: number; windowMs: number };
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** Lifetime of admin tokens (§6). */
  adminTokenTtlSeconds: number;
  /** §4: subscriptions per connection, the change log kept for resume, the send buffer of a socket. */
  realtime: {
    maxSubscriptions: number;
    logMaxWrites: number;
    logMaxAgeSeconds: number;
    /** Bytes of large subtrees' JSON each process keeps between GETs (0: none). */
    readCacheBytes: number;
    wsMaxBufferedBytes: number;
    /** Seconds between pings; a socket that missed two in a row is dropped (§17). */
    wsHeartbeatSeconds: number;
    /** How long an instance's lease on its sockets' on-disconnect writes lasts unrenewed (§17). */
    instanceLeaseMs: number;
  };
  /** §5: how often due resets are looked for (0: never), and how long a reset lease lasts. */
  leaderboards: { resetCheckMs: number; resetLeaseMs: number };
  /**
   * §16: where the server functions' modules are (a missing folder: none), an RPC's and a before hook's time
   * limits, how long the outbox keeps an event no consumer took, and how long a consumer's lease lasts.
   */
  functions: {
    dir: string;
    timeoutMs: number;
    hookTimeoutMs: number;
    eventRetentionHours: number;
    eventLeaseMs: number;
  };
}

/** Reads the configuration; throws one error listing every invalid variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const known = Object.fromEntries(
    Object.keys(EnvSchema.properties)
      .filter((name) => env[name] !== undefined && env[name] !== '')
      .map((name) => [name, env[name]]),
  );
  const parsed = Value.Default(EnvSchema, Value.Convert(EnvSchema, known));
  const problems = [...Value.Errors(EnvSchema, parsed)].map(
    (e) => `${e.instancePath.slice(1) || 'environment'}: ${e.message}`,
  );
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  const e = parsed as Env;
  return {
    port: e.PORT,
    host: e.HOST,
    workers: e.CDS_WORKERS,
    dataDir: e.CDS_DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    databaseSchema: e.CDS_DATABASE_SCHEMA,
    databasePoolSize: e.CDS_DATABASE_POOL_SIZE,
    redisUrl: e.REDIS_URL,
    jwtSecret: e.CDS_JWT_SECRET,
    redisPrefix: e.CDS_REDIS_PREFIX,
    logLevel: e.CDS_LOG_LEVEL,
    bodyLimit: e.CDS_BODY_LIMIT,
    corsOrigins: parseCorsOrigins(e.CDS_CORS_ORIGINS),
    pathLimits: { maxLength: e.CDS_MAX_PATH_LENGTH, maxSegments: e.CDS_MAX_PATH_SEGMENTS },
    rateLimits: {
      perClient: e.CDS_RATE_LIMIT_PER_CLIENT,
      perIp: e.CDS_RATE_LIMIT_PER_IP,
      windowMs: e.CDS_RATE_LIMIT_WINDOW_MS,
    },
    accessTokenTtlSeconds: e.CDS_ACCESS_TOKEN_TTL,
    refreshTokenTtlSeconds: e.CDS_REFRESH_TOKEN_TTL,
    adminTokenTtlSeconds: e.CDS_ADMIN_TOKEN_TTL,
    realtime: {
      maxSubscriptions: e.CDS_REALTIME_MAX_SUBSCRIPTIONS,
      logMaxWrites: e.CDS_REALTIME_LOG_MAX_WRITES,
      logMaxAgeSeconds: e.CDS_REALTIME_LOG_MAX_AGE,
      readCacheBytes: e.CDS_REALTIME_READ_CACHE_MB * 1024 * 1024,
      wsMaxBufferedBytes: e.CDS_WS_MAX_BUFFER,
      wsHeartbeatSeconds: e.CDS_WS_HEARTBEAT_S ?? e.CDS_WS_PING_INTERVAL ?? 10,
      instanceLeaseMs: e.CDS_INSTANCE_LEASE_MS,
    },
    leaderboards: {
      resetCheckMs: e.CDS_LEADERBOARD_RESET_CHECK_MS,
      resetLeaseMs: e.CDS_LEADERBOARD_RESET_LEASE_MS,
    },
    functions: {
      dir: e.CDS_FUNCTIONS_DIR,
      timeoutMs: e.CDS_FUNCTION_TIMEOUT_MS,
      hookTimeoutMs: e.CDS_HOOK_TIMEOUT_MS,
      eventRetentionHours: e.CDS_EVENT_RETENTION_H,
      eventLeaseMs: e.CDS_EVENT_LEASE_MS,
    },
  };
}
