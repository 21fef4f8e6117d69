/**
 * Several real server processes serving together: a fresh PostgreSQL schema (CDS_DATABASE_SCHEMA)
 * and a unique CDS_REDIS_PREFIX per suite, first-start credentials, players and admins over HTTP.
 */
import pg from 'pg';
import { quoteIdent } from '../../src/storage/postgres/postgres-storage.js';
import { TEST_JWT_SECRET } from './app.js';
import { TEST_DATABASE_URL, uniqueSchemaName } from './engines.js';
import { printedOwner, type ServerProcess, startServerProcess } from './server-process.js';

/** A schema of its own on a PostgreSQL server, dropped by `drop`. */
export interface TestSchema {
  name: string;
  /** DATABASE_URL and CDS_DATABASE_SCHEMA for an instance. */
  env: Record<string, string>;
  /** One statement in the schema. */
  query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

/** A schema name nobody uses yet; instances create it (under their migration lock) when they start. */
export function freshSchema(url: string = TEST_DATABASE_URL): TestSchema {
  const name = uniqueSchemaName();
  const pool = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${quoteIdent(name)}` });
  pool.on('error', () => undefined);
  return {
    name,
    env: { DATABASE_URL: url, CDS_DATABASE_SCHEMA: name },
    async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) {
      return (await pool.query<R>(sql, params)).rows;
    },
    async drop() {
      await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdent(name)} CASCADE`).catch(() => undefined);
      await pool.end();
    },
  };
}

/**
 * The database of a test cluster's instances: SQLite in `dataDir`, or a fresh PostgreSQL schema
 * (`dataDir` still holds each instance's other files); `drop` removes the schema.
 */
export function freshDatabase(
  engine: 'sqlite' | 'postgres',
  dataDir: string,
): { env: Record<string, string>; drop(): Promise<void> } {
  const data = { CDS_DATA_DIR: dataDir };
  if (engine === 'sqlite') return { env: data, drop: async () => undefined };
  const schema = freshSchema();
  return { env: { ...schema.env, ...data }, drop: () => schema.drop() };
}

/** What every instance of a test cluster shares besides storage and bus. */
export const CLUSTER_ENV = { CDS_JWT_SECRET: TEST_JWT_SECRET };

/** Starts `count` instances at the same moment; if any fails, stops the others and throws. */
export async function startInstances(count: number, env: Record<string, string>): Promise<ServerProcess[]> {
  const started = await Promise.allSettled(
    Array.from({ length: count }, () => startServerProcess({ ...CLUSTER_ENV, ...env }, 60_000)),
  );
  const failed = started.find((result) => result.status === 'rejected');
  const servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (failed) {
    await Promise.all(servers.map((server) => server.stop()));
    throw failed.reason;
  }
  return servers;
}

/** Kills a server at once (no drain), as a crash would, and waits for it to be gone. */
export async function killServer(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGKILL');
  await exited;
}

/** Stops every server that is still running (afterAll: also after a failed test). */
export async function stopAll(servers: Iterable<ServerProcess | undefined>): Promise<void> {
  await Promise.all(
    [...servers].map(async (server) => {
      if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
      const stopped = server.stop();
      const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
      await stopped;
      clearTimeout(timer);
    }),
  );
}

/** A value the first start printed (`client_id:   cid_…`), or null. */
export function printed(output: string, name: string): string | null {
  return new RegExp(`${name}:\\s+(\\S+)`).exec(output)?.[1] ?? null;
}

/** The first-start credentials of a cluster: organisation, project, client and owner admin. */
export interface ClusterProject {
  orgId: number;
  projectId: number;
  clientId: string;
  clientSecret: string;
  adminEmail: string;
  adminPassword: string;
}

/** The first-start credentials, from the one instance that printed them (throws unless exactly one did). */
export function firstStart(servers: ServerProcess[]): ClusterProject {
  const printers = servers.filter((server) => printed(server.output(), 'client_secret') !== null);
  if (printers.length !== 1) throw new Error(`${printers.length} instances printed first-start credentials`);
  const output = (printers[0] as ServerProcess).output();
  const value = (name: string) => printed(output, name) ?? '';
  return {
    orgId: Number(value('org_id')),
    projectId: Number(value('project_id')),
    clientId: value('client_id'),
    clientSecret: value('client_secret'),
    adminEmail: printedOwner(output).email,
    adminPassword: printedOwner(output).password,
  };
}

/** Signs a player up on `baseUrl`; returns the player's id, token and the three §1 headers. */
export async function signUp(baseUrl: string, project: ClusterProject, username: string) {
  const client = { 'x-client-id': project.clientId, 'x-client-secret': project.clientSecret };
  const response = await fetch(`${baseUrl}/auth/signup`, {
    method: 'POST',
    headers: { ...client, 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: 'long-enough-password' }),
  });
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${await response.text()}`);
  const body = (await response.json()) as { access_token: string; user: { id: number } };
  return {
    userId: body.user.id,
    token: body.access_token,
    headers: { ...client, authorization: `Bearer ${body.access_token}` },
  };
}

/** Signs the first-start owner admin in; returns the admin headers. */
export async function adminHeaders(baseUrl: string, project: ClusterProject): Promise<Record<string, string>> {
  const response = await fetch(`${baseUrl}/admin/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: project.adminEmail, password: project.adminPassword }),
  });
  if (response.status !== 200) throw new Error(`admin login failed: ${response.status} ${await response.text()}`);
  const { access_token } = (await response.json()) as { access_token: string };
  return { authorization: `Bearer ${access_token}` };
}

/** A JSON request; resolves to the status and parsed body. */
export async function call(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
}
