/** Builds the real service over a fresh engine, with one project and one signed-in player. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Clock } from '../../src/core/clock.js';
import type { FunctionRegistry } from '../../src/core/functions/function-registry.js';
import type { RulesSource } from '../../src/core/rules/rules-source.js';
import type { WebhookDeliveryOptions } from '../../src/core/webhooks/webhook-delivery.js';
import type { EngineFixture } from './engines.js';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-0123456789';

/** A project's client credentials. */
export interface TestProject {
  projectId: number;
  clientId: string;
  clientSecret: string;
}

/** A running app with a project and a player, plus helpers to make requests as them. */
export interface TestApp {
  app: App;
  project: TestProject;
  userId: number;
  token: string;
  /** The three §1 headers of the player. */
  headers: Record<string, string>;
  /** Creates another project with a player, returning its headers. */
  otherProject(): Promise<{ project: TestProject; headers: Record<string, string> }>;
  close(): Promise<void>;
}

/** Creates a project and a player in it; returns the credentials and the player's headers. */
export async function createProjectWithPlayer(app: App, orgName: string, projectName: string) {
  const created = await app.services.accounts.createProject(orgName, projectName);
  const project: TestProject = {
    projectId: created.project_id,
    clientId: created.client_id,
    clientSecret: created.client_secret,
  };
  const user = await app.services.accounts.createUser(project.projectId, {
    username: `player_${projectName}`,
    password: 'password-123',
  });
  const { access_token } = await app.services.accounts.issueToken(project.projectId, user.id);
  const headers = {
    'x-client-id': project.clientId,
    'x-client-secret': project.clientSecret,
    authorization: `Bearer ${access_token}`,
  };
  return { project, userId: user.id, token: access_token, headers };
}

/** What a test app may be given besides its environment: a clock, the source of its access rules (§9). */
export interface TestAppOptions {
  clock?: Clock;
  rules?: RulesSource;
  /** Server functions (§16) instead of the modules of `CDS_FUNCTIONS_DIR`. */
  functions?: FunctionRegistry;
  /** Webhook delivery's retry times (§16), shortened. */
  webhookDelivery?: WebhookDeliveryOptions;
}

/** Starts the app in memory (use `app.http.inject`) over a fresh storage of `engine`. */
export async function startTestApp(
  engine: EngineFixture,
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-test-'));
  const storage = await engine.create();
  const config = loadConfig({
    CDS_JWT_SECRET: TEST_JWT_SECRET,
    CDS_LOG_LEVEL: 'silent',
    CDS_DATA_DIR: dataDir,
    ...env,
  });
  const app = await buildApp(config, { storage, ...options });
  const main = await createProjectWithPlayer(app, 'org-a', 'main');
  let others = 0;
  return {
    app,
    ...main,
    async otherProject() {
      others += 1;
      const other = await createProjectWithPlayer(app, `org-other-${others}`, `other${others}`);
      return { project: other.project, headers: other.headers };
    },
    async close() {
      await app.http.close();
      await engine.destroy(storage);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
