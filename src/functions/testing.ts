/**
 * `client-data-service/functions/testing`: runs an operator's modules of server functions (§16)
 * against the whole service in their own tests, in memory: SQLite in a temporary folder, requests
 * injected into the HTTP app (no port), one project with one player.
 *
 *   const service = await startFunctionsTestService({ modules: [rewards] });
 *   expect(await service.call('claimDaily')).toEqual({ coins: 10 });
 *   await service.close();
 *
 * The composition root is imported here (as `app.ts` may be by anything that starts the
 * service); the subpath's types are `testing-api.ts`, which this file is checked against.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import { adminApi } from '../core/functions/admin-api.js';
import { FunctionRegistry } from '../core/functions/function-registry.js';
import { moduleProblem } from '../core/functions/functions-module.js';
import { HttpError, type JsonObject, type JsonValue } from './index.js';
import type * as Api from './testing-api.js';

export type {
  AsCaller,
  AsPlayer,
  ClientDocument,
  FunctionsTestOptions,
  FunctionsTestService,
  TestPlayer,
} from './testing-api.js';

/** Signs the service's own tokens: any secret will do for a service that lives as long as a test. */
const JWT_SECRET = 'functions-testing-secret-0123456789abcdef';
const PASSWORD = 'password-123';

interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: JsonValue;
}

/**
 * The errors the service logged (a function's throw, with its stack), by request id: a `500
 * Function failed` thrown to the test carries its error as `cause`, where the client sees none.
 */
class ErrorLog {
  private readonly errors = new Map<string, Error>();
  readonly stream = { write: (line: string) => this.write(line) };

  private write(line: string): void {
    const entry = JSON.parse(line) as { reqId?: string; msg?: string; err?: { message?: string; stack?: string } };
    if (!entry.reqId) return;
    const error = new Error(entry.err?.message ?? entry.msg ?? 'logged error');
    if (entry.err?.stack) error.stack = entry.err.stack;
    this.errors.set(entry.reqId, error);
    if (this.errors.size > 100) this.errors.delete(this.errors.keys().next().value as string);
  }

  /** The error logged for the request, once. */
  take(requestId: string): Error | undefined {
    const error = this.errors.get(requestId);
    this.errors.delete(requestId);
    return error;
  }
}

/** Injects a request; answers its JSON body, or throws the `HttpError` the client would have got. */
async function send<T>(app: App, request: Request, log?: ErrorLog): Promise<T> {
  const { method, url, headers, body: sent } = request;
  const response = await app.http.inject(
    sent === undefined
      ? { method, url, headers }
      : { method, url, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(sent) },
  );
  const body = response.body === '' ? null : (JSON.parse(response.body) as unknown);
  if (response.statusCode >= 400) {
    const detail = (body as { detail?: unknown } | null)?.detail;
    const error = new HttpError(
      response.statusCode,
      (detail ?? response.statusMessage) as ConstructorParameters<typeof HttpError>[1],
    );
    const cause = log?.take(String(response.headers['x-request-id']));
    if (cause) error.cause = cause;
    throw error;
  }
  return body as T;
}

/** A path's segments, each percent-encoded as a URL carries it. */
const encoded = (path: string) => path.split('/').map(encodeURIComponent).join('/');

export const startFunctionsTestService: typeof Api.startFunctionsTestService = async (options) => {
  const modules = options.modules.map((definition, i) => {
    const file = `module ${i + 1}`;
    const problem = moduleProblem(definition);
    if (problem) throw new Error(`${file}: ${problem}`);
    return { file, definition };
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-functions-test-'));
  const errors = new ErrorLog();
  let app: App;
  try {
    const config = loadConfig({
      CDS_JWT_SECRET: JWT_SECRET,
      CDS_LOG_LEVEL: 'silent',
      ...options.env,
      CDS_DATA_DIR: dataDir,
    });
    app = await buildApp(config, {
      logger: { level: 'error', stream: errors.stream },
      functions: FunctionRegistry.of(modules),
      ...(options.now ? { clock: { now: options.now } } : {}),
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const { services } = app;
  const ask = <T>(request: Request) => send<T>(app, request, errors);
  const project = await services.accounts.createProject('functions-test', 'test');
  const projectId = project.project_id;
  const client = { 'x-client-id': project.client_id, 'x-client-secret': project.client_secret };
  const created = await services.accounts.createUser(projectId, { username: 'player', password: PASSWORD });
  const { access_token } = await services.accounts.issueToken(projectId, created.id);
  const player: Api.TestPlayer = { user_id: created.id, username: 'player', access_token };

  const asPlayer = (who: Api.TestPlayer = player) => ({ ...client, authorization: `Bearer ${who.access_token}` });
  let serverKey: Promise<string> | undefined;
  const asCaller = async (who: Api.TestPlayer | 'server' | undefined) => {
    if (who !== 'server') return asPlayer(who);
    serverKey ??= services.serverKeys.create(projectId, { name: 'tests', role: 'editor' }).then((issued) => issued.key);
    return { authorization: `Bearer ${await serverKey}` };
  };
  let adminHeaders: Promise<Record<string, string>> | undefined;
  const asAdmin = () => {
    adminHeaders ??= (async () => {
      const email = 'owner@functions-test.example';
      await services.admins.createAdmin(project.org_id, { email, password: PASSWORD, role: 'owner' });
      const login = await ask<{ access_token: string }>({
        method: 'POST',
        url: '/admin/auth/login',
        headers: {},
        body: { email, password: PASSWORD },
      });
      return { authorization: `Bearer ${login.access_token}` };
    })();
    return adminHeaders;
  };
  const write = (path: string, data: JsonObject, opts: Api.AsPlayer & { transforms?: JsonObject }) => ({
    url: `/documents/docs/${encoded(path)}`,
    headers: asPlayer(opts.as),
    body: { data, ...(opts.transforms ? { transforms: opts.transforms } : {}) },
  });

  return {
    project_id: projectId,
    player,
    admin: adminApi(
      {
        documents: services.documents,
        tree: services.tree,
        leaderboards: services.leaderboards,
        users: services.projectAdmin,
      },
      projectId,
    ),
    call: async (name, input, opts = {}) => {
      const headers = await asCaller(opts.as);
      const url = `/functions/${encodeURIComponent(name)}`;
      const answer = await ask<{ result: JsonValue }>({ method: 'POST', url, headers, body: input ?? null });
      return answer.result;
    },
    documents: {
      put: (path, data, opts = {}) => ask({ method: 'PUT', ...write(path, data, opts) }),
      patch: (path, data, opts = {}) => ask({ method: 'PATCH', ...write(path, data, opts) }),
      delete: (path, opts = {}) =>
        ask({ method: 'DELETE', url: `/documents/docs/${encoded(path)}`, headers: asPlayer(opts.as) }),
    },
    realtime: {
      set: (path, value, opts = {}) =>
        ask({ method: 'PUT', url: `/realtime/db/${encoded(path)}`, headers: asPlayer(opts.as), body: { value } }),
    },
    leaderboards: {
      create: async (slug, settings = {}) => {
        const url = `/admin/projects/${projectId}/leaderboards`;
        await ask({ method: 'POST', url, headers: await asAdmin(), body: { name: slug, ...settings, slug } });
      },
      submit: (slug, value, opts = {}) =>
        ask({
          method: 'POST',
          url: `/leaderboards/${encodeURIComponent(slug)}/stats`,
          headers: asPlayer(opts.as),
          body: { value },
        }),
      reset: async (slug) => {
        const url = `/admin/projects/${projectId}/leaderboards/${encodeURIComponent(slug)}/reset`;
        await ask({ method: 'POST', url, headers: await asAdmin() });
      },
    },
    signup: async (username, opts = {}) => {
      const body = {
        username,
        password: opts.password ?? PASSWORD,
        ...(opts.nickname ? { nickname: opts.nickname } : {}),
      };
      const answer = await ask<{ access_token: string; user: { id: number; nickname: string } }>({
        method: 'POST',
        url: '/auth/signup',
        headers: client,
        body,
      });
      return { user_id: answer.user.id, username, access_token: answer.access_token, nickname: answer.user.nickname };
    },
    runSchedules: () => app.services.schedules.runDue(),
    afterHandlers: () => app.services.consumers.settled(),
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};
