/** A real server process for the SDK tests, on a fixed free port so it can be restarted on the same URL; the files' shared setup. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type Client, type ClientOptions, createClient } from '../../packages/client/src/index.js';
import { printedOwner, type ServerProcess, startServerProcess } from '../support/server-process.js';

const printed = (output: string, name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(output)?.[1] ?? '';

export interface Service {
  url: string;
  clientId: string;
  clientSecret: string;
  projectId: number;
  /** An admin bearer token of the project's organisation. */
  adminToken(): Promise<string>;
  /** SIGKILLs the process (no graceful close) and resolves once it is gone. */
  kill(): Promise<void>;
  /** Starts the process again on the same port and data directory. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startService(env: Record<string, string> = {}): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-sdk-'));
  const port = String(await freePort());
  // Generous: on a loaded machine the service once took 15 s or more to start (under tsx).
  const start = () => startServerProcess({ CDS_DATA_DIR: dataDir, PORT: port, ...env }, 55_000);
  let server: ServerProcess | undefined = await start();
  const output = server.output();
  const url = server.baseUrl;
  const { email, password } = printedOwner(output);
  return {
    url,
    clientId: printed(output, 'client_id'),
    clientSecret: printed(output, 'client_secret'),
    projectId: Number(printed(output, 'project_id')),
    async adminToken() {
      const login = await fetch(`${url}/admin/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
      return ((await login.json()) as { access_token: string }).access_token;
    },
    async kill() {
      const child = server?.child;
      server = undefined;
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
    async restart() {
      server = await start();
    },
    async stop() {
      await server?.stop();
      server = undefined;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The service of one test file and the clients its tests made. */
export interface SuiteService {
  readonly service: Service;
  /** A client of the service, closed after the file's tests. */
  client(options?: Partial<ClientOptions>): Client;
  /** A client signed in as the guest of `device`. */
  guest(device: string, options?: Partial<ClientOptions>): Promise<Client>;
}

/** Starts a service before the file's tests and stops it, with every client made through it, after them. */
export function serviceForSuite(env: Record<string, string> = {}): SuiteService {
  let started: Service | undefined;
  const clients: Client[] = [];
  beforeAll(async () => {
    started = await startService(env);
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await started?.stop();
  });
  const suite: SuiteService = {
    get service() {
      if (!started) throw new Error('the service has not started');
      return started;
    },
    client(options = {}) {
      const { url, clientId, clientSecret } = suite.service;
      const client = createClient({ url, clientId, clientSecret, ...options });
      clients.push(client);
      return client;
    },
    async guest(device, options = {}) {
      const client = suite.client(options);
      await client.auth.guest(device);
      return client;
    },
  };
  return suite;
}

/** Waits until `check` holds, polling every `stepMs`. */
export async function until(check: () => boolean, timeoutMs = 20_000, stepMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}

/** The error a promise rejects with, or null when it resolves. */
export const caught = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => null,
    (error: unknown) => error,
  );
