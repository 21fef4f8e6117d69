/**
 * `npm run soak [-- --minutes 30] [-- --modes sqlite,cluster] [-- --report-seconds 60] [-- --warmup-minutes 5] [-- --heap-snapshots 10,30] [-- --from-source]`: mixed
 * traffic (bench/soak-traffic.ts) for a while against one instance on SQLite, and against two
 * instances on PostgreSQL + Redis (`cluster`), printing every interval each instance's RSS and
 * event-loop delay p99 (measured inside the service, bench/soak-probe.mjs), the requests, errors
 * and updates delivered; then a Markdown table and the RSS growth after the warm-up (5 minutes by
 * default). `--heap-snapshots` writes V8 heap snapshots of every instance at those minutes
 * into a directory it names. Not part of `npm test`. PostgreSQL at CDS_SOAK_DATABASE_URL, Redis at CDS_SOAK_REDIS_URL.
 * Each instance runs the build as `npm start` does (bench/service-entry.ts; its sources with `--from-source`).
 */
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createdUser } from '../src/core/auth/auth-service.js';
import { PLAYER_ROLE } from '../src/core/auth/player-role.js';
import { ANTI_CHEAT_DEFAULTS, TOURNAMENT_DEFAULTS } from '../src/core/leaderboards/leaderboard-model.js';
import type { Storage } from '../src/core/ports.js';
import { createServices } from '../src/services.js';
import { PostgresStorage, quoteIdent } from '../src/storage/postgres/postgres-storage.js';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { ChildServer, cleanEnv, freePort, ROOT, sleep, startScriptNodeFlags } from './child.js';
import { serviceCommand, serviceEntry } from './service-entry.js';
import { type SoakRates, type SoakTarget, SoakTraffic } from './soak-traffic.js';

type Mode = 'sqlite' | 'cluster';

function argument(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const MINUTES = Number(argument('--minutes', process.env.CDS_SOAK_MINUTES ?? '30'));
const REPORT_SECONDS = Number(argument('--report-seconds', '60'));
/**
 * Minutes left out of the growth figure: the start-up peak (1,000 sockets subscribing, the data
 * created) is collected and V8 settles its heap within them (BENCHMARKS.md, soak runs).
 */
const WARMUP_MINUTES = Number(argument('--warmup-minutes', '5'));
const MODES = argument('--modes', 'sqlite,cluster').split(',') as Mode[];
const HEAP_SNAPSHOT_MINUTES = argument('--heap-snapshots', '');
const DATABASE_URL = process.env.CDS_SOAK_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.CDS_SOAK_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PLAYERS = 200;
const BOARD = 'soak';
const RATES: SoakRates = { documents: 60, treeWrites: 5, submits: 20, boardReads: 20, subscribers: 1000 };
/** Preloaded into each instance: the RSS and event-loop probe. */
const PROBE = pathToFileURL(join(ROOT, 'bench', 'soak-probe.mjs')).href;

/** One row of the report: one interval of one mode. */
interface Row {
  mode: Mode;
  minute: number;
  requests: number;
  errors: number;
  skipped: number;
  updates: number;
  /** Per instance, the probe's last line. */
  instances: Probe[];
}

interface Prepared {
  env: Record<string, string>;
  dir: string;
  target: Omit<SoakTarget, 'baseUrls' | 'wsUrls'>;
  drop(): Promise<void>;
}

/** A fresh database with a project, its players (tokens, no passwords) and a leaderboard. */
async function prepare(mode: Mode): Promise<Prepared> {
  const dir = mkdtempSync(join(tmpdir(), 'cds-soak-'));
  const schema = `cds_soak_${randomBytes(6).toString('hex')}`;
  const env: Record<string, string> = { CDS_DATA_DIR: dir, CDS_JWT_SECRET: randomBytes(32).toString('hex') };
  let storage: Storage;
  if (mode === 'cluster') {
    storage = await PostgresStorage.open({ connectionString: DATABASE_URL, schema });
    Object.assign(env, { DATABASE_URL, CDS_DATABASE_SCHEMA: schema, REDIS_URL, CDS_REDIS_PREFIX: schema });
  } else {
    storage = SqliteStorage.open(join(dir, 'cds.sqlite'));
  }
  const services = createServices(loadConfig(env), storage);
  const created = await services.accounts.createProject('soak', `soak ${mode}`);
  const tokens: string[] = [];
  for (let i = 1; i <= PLAYERS; i++) {
    const user = createdUser(
      await storage.accounts.createUser(created.project_id, {
        username: `soak_${i}`,
        passwordHash: null,
        nickname: `Soak ${i}`,
        roles: [PLAYER_ROLE],
      }),
    );
    tokens.push((await services.auth.issueAccessToken(created.project_id, user.id)).access_token);
  }
  await services.leaderboards.create(created.project_id, {
    slug: BOARD,
    name: 'Soak',
    description: '',
    type: 'CONTINUOUS',
    sort: 'desc',
    operator: 'best',
    reset: 'none',
    leagues: [{ slug: 'global', name: 'Global', order: 0, minStat: null, promoteTop: null, demoteBottom: null }],
    rewards: [],
    ...ANTI_CHEAT_DEFAULTS,
    ...TOURNAMENT_DEFAULTS,
  });
  await services.leaderboards.stop();
  await storage.close();
  return {
    env,
    dir,
    target: { clientId: created.client_id, clientSecret: created.client_secret, tokens, board: BOARD },
    async drop() {
      rmSync(dir, { recursive: true, force: true });
      if (mode !== 'cluster') return;
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).finally(() => client.end());
    },
  };
}

/**
 * What an instance's probe measured, in MiB: RSS, its anonymous part, V8's used and committed heap
 * and the young generation's part of the committed heap; event-loop delay p99 in ms.
 */
interface Probe {
  rssMiB: number;
  anonMiB: number;
  heapMiB: number;
  heapTotalMiB: number;
  youngMiB: number;
  p99: number;
}

/** The probe's last line of instance `i`. */
function lastProbe(dir: string, i: number): Probe {
  try {
    const lines = readFileSync(join(dir, `probe-${i}.jsonl`), 'utf8')
      .trim()
      .split('\n');
    const last = JSON.parse(lines[lines.length - 1] as string) as {
      rss: number;
      anon: number | null;
      heapUsed: number;
      heapTotal: number;
      young: number;
      p99: number;
    };
    const mib = (bytes: number | null) => (bytes ?? Number.NaN) / 2 ** 20;
    return {
      rssMiB: mib(last.rss),
      anonMiB: mib(last.anon),
      heapMiB: mib(last.heapUsed),
      heapTotalMiB: mib(last.heapTotal),
      youngMiB: mib(last.young),
      p99: last.p99,
    };
  } catch {
    const none = Number.NaN;
    return { rssMiB: none, anonMiB: none, heapMiB: none, heapTotalMiB: none, youngMiB: none, p99: none };
  }
}

async function soak(mode: Mode): Promise<Row[]> {
  const prepared = await prepare(mode);
  const count = mode === 'cluster' ? 2 : 1;
  const servers: ChildServer[] = [];
  const rows: Row[] = [];
  const heapDir = HEAP_SNAPSHOT_MINUTES ? mkdtempSync(join(tmpdir(), `cds-soak-heap-${mode}-`)) : undefined;
  if (heapDir) console.error(`[soak] ${mode}: heap snapshots at minutes ${HEAP_SNAPSHOT_MINUTES} go to ${heapDir}`);
  try {
    const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
    for (const [i, port] of ports.entries()) {
      const env = cleanEnv({
        ...prepared.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        // One process per instance, as the soak was designed and recorded (its probe measures one heap).
        CDS_WORKERS: '1',
        SOAK_PROBE_FILE: join(prepared.dir, `probe-${i}.jsonl`),
        SOAK_PROBE_MS: String(REPORT_SECONDS * 1000),
        ...(heapDir ? { SOAK_HEAP_DIR: join(heapDir, `instance-${i}`), SOAK_HEAP_MINUTES: HEAP_SNAPSHOT_MINUTES } : {}),
      });
      if (heapDir) mkdirSync(join(heapDir, `instance-${i}`));
      const logFile = join(prepared.dir, `service-${i}.log`);
      const server = ChildServer.spawn(serviceEntry(), env, logFile, [...startScriptNodeFlags(), '--import', PROBE]);
      servers.push(server);
      await server.waitFor(`http://127.0.0.1:${port}/readyz`, performance.now());
    }
    const traffic = new SoakTraffic(
      {
        ...prepared.target,
        baseUrls: ports.map((p) => `http://127.0.0.1:${p}`),
        wsUrls: ports.map((p) => `ws://127.0.0.1:${p}/realtime/ws`),
      },
      RATES,
    );
    await traffic.start();
    traffic.take();
    const intervals = Math.max(1, Math.round((MINUTES * 60) / REPORT_SECONDS));
    for (let minute = 1; minute <= intervals; minute++) {
      await sleep(REPORT_SECONDS * 1000);
      // The probes write at the same period; a moment later their line of this interval is there.
      await sleep(200);
      const counts = traffic.take();
      const row: Row = { mode, minute, ...counts, instances: servers.map((_, i) => lastProbe(prepared.dir, i)) };
      rows.push(row);
      const figures = row.instances.map(
        (s, i) =>
          `#${i} rss ${s.rssMiB.toFixed(0)} MiB (anon ${s.anonMiB.toFixed(0)}, heap ${s.heapMiB.toFixed(0)} of ${s.heapTotalMiB.toFixed(0)}, young ${s.youngMiB.toFixed(0)}) p99 ${s.p99.toFixed(1)} ms`,
      );
      console.error(
        `[soak] ${mode} ${minute}/${intervals}: ${counts.requests} requests, ${counts.errors} errors, ${counts.skipped} skipped, ${counts.updates} updates; ${figures.join('; ')}${counts.samples.length ? ` (${counts.samples.join(' | ')})` : ''}`,
      );
    }
    await traffic.stop();
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    // The services' logs outlive the database when anything failed, to find out why.
    if (rows.some((r) => r.errors > 0)) {
      const kept = mkdtempSync(join(tmpdir(), `cds-soak-logs-${mode}-`));
      for (const i of servers.keys()) cpSync(join(prepared.dir, `service-${i}.log`), join(kept, `service-${i}.log`));
      console.error(`[soak] ${mode}: errors; the services' logs are in ${kept}`);
    }
    await prepared.drop();
  }
  return rows;
}

function markdown(rows: Row[]): string {
  const lines = [
    `| mode | ${REPORT_SECONDS === 60 ? 'minute' : `interval (${REPORT_SECONDS} s)`} | requests | errors | skipped | updates delivered | RSS MiB | anonymous RSS MiB | V8 heap used / committed MiB | V8 young generation MiB | event-loop p99 ms |`,
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    // One figure per instance, separated by slashes.
    const each = (figure: (probe: Probe) => string) => r.instances.map(figure).join(' / ');
    const memory = [
      each((s) => s.rssMiB.toFixed(0)),
      each((s) => s.anonMiB.toFixed(0)),
      each((s) => `${s.heapMiB.toFixed(0)} / ${s.heapTotalMiB.toFixed(0)}`),
      each((s) => s.youngMiB.toFixed(0)),
    ];
    lines.push(
      `| ${r.mode} | ${r.minute} | ${r.requests} | ${r.errors} | ${r.skipped} | ${r.updates} | ${memory.join(' | ')} | ${each((s) => s.p99.toFixed(1))} |`,
    );
  }
  return lines.join('\n');
}

/**
 * Growth of one memory figure per instance, in %, from its lowest value after the warm-up to the
 * last interval: from the lowest, so a slow climb is not hidden behind the start-up peak.
 */
function growth(rows: Row[], figure: 'rssMiB' | 'anonMiB' | 'heapMiB'): string {
  const settled = rows.slice(Math.round((WARMUP_MINUTES * 60) / REPORT_SECONDS));
  const last = rows[rows.length - 1];
  if (!last || settled.length === 0) return 'n/a (no interval after the warm-up)';
  return last.instances
    .map((s, i) => {
      const low = Math.min(...settled.map((r) => r.instances[i]?.[figure] ?? s[figure]));
      return `${(((s[figure] - low) / low) * 100).toFixed(1)} % (${low.toFixed(0)} → ${s[figure].toFixed(0)} MiB)`;
    })
    .join(' / ');
}

const all: Row[] = [];
const summaries: string[] = [];
serviceEntry(); // builds first when the build is older than the sources
for (const mode of MODES) {
  const rows = await soak(mode);
  all.push(...rows);
  summaries.push(
    `- ${mode}: growth after the ${WARMUP_MINUTES}-minute warm-up: RSS ${growth(rows, 'rssMiB')}, anonymous RSS ${growth(rows, 'anonMiB')}, V8 heap used ${growth(rows, 'heapMiB')}; errors ${rows.reduce((s, r) => s + r.errors, 0)}`,
  );
}
console.log(
  `Soak: ${MINUTES} min per mode; rates/s ${JSON.stringify(RATES)}; service: ${serviceCommand()}\n\n${markdown(all)}\n\n${summaries.join('\n')}`,
);
process.exit(0);
