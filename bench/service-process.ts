/**
 * The service under test: a fresh database per engine (a temporary SQLite directory, or a fresh
 * PostgreSQL schema dropped afterwards), its project, users, tokens and bulk-loaded data created
 * through the services and SQL before start, then `node <the flags of npm start>
 * dist/src/main.js` (what `npm start` runs; `--from-source`: `--import tsx src/main.ts`,
 * bench/service-entry.ts) in its own process with the environment a deployment would set, at the
 * default log level.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createdUser } from '../src/core/auth/auth-service.js';
import { PLAYER_ROLE } from '../src/core/auth/player-role.js';
import {
  ANTI_CHEAT_DEFAULTS,
  type LeaderboardDefinition,
  TOURNAMENT_DEFAULTS,
  type Tournament,
} from '../src/core/leaderboards/leaderboard-model.js';
import type { Storage } from '../src/core/ports.js';
import { parseRuleset } from '../src/core/rules/ruleset.js';
import { createServices } from '../src/services.js';
import { PostgresStorage, quoteIdent } from '../src/storage/postgres/postgres-storage.js';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { ChildServer, cleanEnv, freePort, startScriptNodeFlags } from './child.js';
import { loadDatasets } from './datasets.js';
import { type IndexedLoad, loadIndexedCollections } from './indexed-collections.js';
import { OWNER_RULESET } from './rules-workloads.js';
import { importSeed, type SeedImport } from './seed-import.js';
import { serviceEntry } from './service-entry.js';
import type { BenchSettings, Engine } from './settings.js';

/** The slug of the benchmark's leaderboard. */
export const BOARD = 'bench';
/**
 * The slug of the benchmark's tournament (§18): the same entries as `BOARD`, players must join
 * (every bench user has), no participant limit, a submission limit no run reaches (so each
 * submission is counted), and a window open from a day before the run to a year after it.
 */
export const TOURNAMENT = 'bench-cup';
/** The tournament's submission limit per player and period: counted, never reached. */
const TOURNAMENT_SUBMISSIONS = 1_000_000_000;
const DAY_MS = 86_400_000;

/** The credentials clients of the benchmark use. */
export interface BenchProject {
  projectId: number;
  clientId: string;
  clientSecret: string;
  /** One access token per user; user `i + 1` holds `tokens[i]` and has a board entry. */
  tokens: string[];
}

/** A database ready for the service, and how to remove it. */
export interface PreparedDatabase {
  engine: Engine;
  project: BenchProject;
  /** Two projects holding the same documents, one under the open ruleset, one under `OWNER_RULESET`. */
  rules: { open: BenchProject; owner: BenchProject; documents: number };
  /** A third project holding the same documents, with a `documents.write` before hook that does nothing (§16). */
  hooked: BenchProject;
  /** The service's environment for this database. */
  env: Record<string, string>;
  dataDir: string;
  loadSeconds: number;
  /** The §15 collections: their load, and each index build, in seconds (part of `loadSeconds`). */
  indexed: IndexedLoad;
  /** The seed imported into the project before the service starts; null without datasets. */
  seed: SeedImport | null;
  drop(): Promise<void>;
}

/** A started service. */
export interface RunningService {
  engine: Engine;
  baseUrl: string;
  wsUrl: string;
  server: ChildServer;
  /** `performance.now()` at spawn. */
  spawnedAt: number;
  /** Milliseconds from spawn until /readyz answered 200. */
  readyMs: number;
}

/** Creates the database, the project and its users, and loads the datasets. */
export async function prepareDatabase(engine: Engine, settings: BenchSettings): Promise<PreparedDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-bench-'));
  const jwtSecret = randomBytes(32).toString('hex');
  const schema = `cds_bench_${randomBytes(6).toString('hex')}`;
  // One server function (§16) for the RPC workload: it returns its input.
  const functionsDir = join(dataDir, 'functions');
  mkdirSync(functionsDir);
  writeFileSync(
    join(functionsDir, 'echo.mjs'),
    "import { defineFunctions } from 'client-data-service/functions';\nexport default defineFunctions({ projects: '*', rpc: { echo: (_ctx, input) => input } });\n",
  );
  const env: Record<string, string> = {
    CDS_DATA_DIR: dataDir,
    CDS_JWT_SECRET: jwtSecret,
    CDS_FUNCTIONS_DIR: functionsDir,
  };
  let storage: Storage;
  if (engine === 'postgres') {
    storage = await PostgresStorage.open({ connectionString: settings.databaseUrl, schema });
    env.DATABASE_URL = settings.databaseUrl;
    env.CDS_DATABASE_SCHEMA = schema;
  } else {
    storage = SqliteStorage.open(join(dataDir, 'cds.sqlite'));
  }
  const drop = async () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (engine !== 'postgres') return;
    const client = new pg.Client({ connectionString: settings.databaseUrl });
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    } finally {
      await client.end();
    }
  };
  try {
    const services = createServices(loadConfig(env), storage);
    const created = await services.accounts.createProject('bench', `bench ${engine}`);
    const tokens: string[] = [];
    for (let i = 1; i <= settings.users; i++) {
      // Straight through the store: no password, so no scrypt work in setup.
      const user = createdUser(
        await storage.accounts.createUser(created.project_id, {
          username: `bench_${i}`,
          passwordHash: null,
          nickname: `Bench ${i}`,
          roles: [PLAYER_ROLE],
        }),
      );
      // The workloads name users by id (a 50-user set): user i has id i, as the board's entries assume.
      if (user.id !== i) throw new Error(`bench user ${i} was given id ${user.id}`);
      tokens.push((await services.auth.issueAccessToken(created.project_id, user.id)).access_token);
    }
    const board = await services.leaderboards.create(
      created.project_id,
      benchBoard(BOARD, 'Bench', TOURNAMENT_DEFAULTS),
    );
    const now = Date.now();
    const cup = await services.leaderboards.create(
      created.project_id,
      benchBoard(TOURNAMENT, 'Bench cup', {
        joinRequired: true,
        maxParticipants: null,
        maxSubmissions: TOURNAMENT_SUBMISSIONS,
        startsAt: now - DAY_MS,
        endsAt: now + 365 * DAY_MS,
      }),
    );
    const started = performance.now();
    // Without datasets (fan-out and memory only) the projects are there, empty.
    if (settings.datasets) await loadDatasets(storage, created.project_id, [board.id, cup.id], settings);
    // Every bench user joins the tournament's period, as players would before submitting (only its HTTP workload submits).
    if (settings.datasets) {
      for (let i = 1; i <= settings.users; i++) await services.leaderboards.join(created.project_id, i, TOURNAMENT);
    }
    const indexed = settings.datasets
      ? await loadIndexedCollections(storage, created.project_id, settings)
      : { loadSeconds: 0, buildSeconds: [] };
    const rulesDocuments = settings.datasets ? Math.min(settings.documents, RULES_DOCUMENTS) : 0;
    const rules = {
      open: await rulesProject(services, storage, 'rules open', rulesDocuments),
      owner: await rulesProject(services, storage, 'rules owner', rulesDocuments),
      documents: rulesDocuments,
    };
    // §16: a project like the open-rules one whose documents.write hook does nothing (its PUTs are measured against that one's).
    const hooked = await rulesProject(services, storage, 'no-op hook', rulesDocuments);
    writeFileSync(
      join(functionsDir, 'no-op-hook.mjs'),
      `import { defineFunctions } from 'client-data-service/functions';\nexport default defineFunctions({ projects: [${hooked.projectId}], before: { 'documents.write': () => undefined } });\n`,
    );
    await storage.rules.save(rules.owner.projectId, parseRuleset(OWNER_RULESET), Date.now());
    const loadSeconds = (performance.now() - started) / 1000;
    // Last, as a user's import would be: every row is measured on the database it leaves.
    const seed = settings.datasets ? await importSeed(services, created.project_id, settings, engine, dataDir) : null;
    await services.leaderboards.stop();
    await storage.close();
    return {
      engine,
      env,
      dataDir,
      loadSeconds,
      indexed,
      seed,
      drop,
      rules,
      hooked,
      project: {
        projectId: created.project_id,
        clientId: created.client_id,
        clientSecret: created.client_secret,
        tokens,
      },
    };
  } catch (error) {
    await storage.close().catch(() => undefined);
    await drop();
    throw error;
  }
}

const RULES_DOCUMENTS = 100_000;

/** A board of the benchmark: one league, the latest stat counts (a write moves the entry each time). */
function benchBoard(slug: string, name: string, tournament: Tournament): LeaderboardDefinition {
  return {
    slug,
    name,
    description: '',
    type: 'CONTINUOUS',
    sort: 'desc',
    operator: 'latest',
    reset: 'none',
    leagues: [{ slug: 'global', name: 'Global', order: 0, minStat: null, promoteTop: null, demoteBottom: null }],
    rewards: [],
    ...ANTI_CHEAT_DEFAULTS,
    ...tournament,
  };
}

/** A project with one player and `documents` items, for the rules workloads. */
async function rulesProject(
  services: ReturnType<typeof createServices>,
  storage: Storage,
  name: string,
  documents: number,
): Promise<BenchProject> {
  const created = await services.accounts.createProject('bench', name);
  const user = createdUser(
    await storage.accounts.createUser(created.project_id, {
      username: 'rules_player',
      passwordHash: null,
      nickname: 'Rules',
      roles: [PLAYER_ROLE],
    }),
  );
  const sizes = { documents, hubDescendants: 0, treeLeaves: 0, subtreeLeaves: 1, boardEntries: 0 };
  await loadDatasets(storage, created.project_id, 0, sizes);
  return {
    projectId: created.project_id,
    clientId: created.client_id,
    clientSecret: created.client_secret,
    tokens: [(await services.auth.issueAccessToken(created.project_id, user.id)).access_token],
  };
}

/**
 * Starts the service on a prepared database with CDS_WORKERS=`workers` and waits until it is
 * ready (every worker listening); `profileDir` adds `--cpu-prof`. With several workers the
 * child's CPU counts every process, its RSS the primary's only. `script` is the entry point: this
 * checkout's build by default (its sources with `--from-source`); another checkout's runs that
 * version (`service-ab.ts`).
 */
export async function startService(
  prepared: PreparedDatabase,
  profileDir?: string,
  workers = 1,
  script = serviceEntry(),
): Promise<RunningService> {
  const port = await freePort();
  const env = cleanEnv({ ...prepared.env, PORT: String(port), HOST: '127.0.0.1', CDS_WORKERS: String(workers) });
  const spawnedAt = performance.now();
  const nodeArgs = [...startScriptNodeFlags(), ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
  const server = ChildServer.spawn(script, env, join(prepared.dataDir, 'service.log'), nodeArgs);
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    // Each worker starts the whole service (and compiles the sources, with --from-source): on a
    // loaded machine that takes a while.
    const timeoutMs = workers > 1 ? 180_000 : 60_000;
    let readyMs = await server.waitFor(`${baseUrl}/readyz`, spawnedAt, timeoutMs);
    // /readyz answers once the first worker listens; the primary says when all do.
    if (workers > 1) readyMs = await server.waitForLog(`all ${workers} workers listening`, spawnedAt, timeoutMs);
    const wsUrl = `ws://127.0.0.1:${port}/realtime/ws`;
    return { engine: prepared.engine, baseUrl, wsUrl, server, spawnedAt, readyMs };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** The headers of a client request as user `i` (0-based). */
export function clientHeaders(project: BenchProject, i = 0): Record<string, string> {
  return {
    'x-client-id': project.clientId,
    'x-client-secret': project.clientSecret,
    authorization: `Bearer ${project.tokens[i % project.tokens.length]}`,
  };
}
