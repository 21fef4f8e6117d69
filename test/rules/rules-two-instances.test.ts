/**
 * Two app instances over one PostgreSQL schema and one Redis bus (a prefix of their own): a PUT
 * answered by A is in force on B within one second, B's listeners are told, and B's GET shows it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { createAdmin } from '../support/admin.js';
import { createProjectWithPlayer } from '../support/app.js';
import { postgresEngine } from '../support/engines.js';
import { redisUnavailable } from '../support/services.js';
import { startTwoInstances, type TwoInstances } from '../support/two-instances.js';

const unavailable = postgresEngine.unavailable ?? (await redisUnavailable());

describe.skipIf(unavailable)('rules on two instances over one PostgreSQL and one Redis', () => {
  let instances: TwoInstances;
  let apps: App[];
  beforeAll(async () => {
    instances = await startTwoInstances();
    apps = instances.apps;
  });
  afterAll(async () => {
    await instances?.close();
  });

  it('puts a PUT answered by one instance in force on the other within one second', async () => {
    const [a, b] = apps as [App, App];
    const { project } = await createProjectWithPlayer(a, 'org-rules', 'two');
    const projectId = project.projectId;
    const orgId = (await a.services.storage.accounts.getProject(projectId))?.orgId as number;
    const owner = await createAdmin({ app: a }, orgId, 'owner');
    expect((await b.services.rules.compiled(projectId)).open).toBe(true);
    const changes: number[] = [];
    b.services.rules.onChange((changed) => changes.push(changed));

    const rules = { documents: [{ match: 'users/{uid}', allow: { read: 'request.auth.uid == uid' } }], realtime: [] };
    const put = await a.http.inject({
      method: 'PUT',
      url: `/admin/projects/${projectId}/rules`,
      headers: owner.headers,
      payload: { rules },
    });
    expect(put.statusCode).toBe(200);
    const startedAt = Date.now();
    expect((await a.services.rules.compiled(projectId)).rules).toEqual(rules);
    while ((await b.services.rules.compiled(projectId)).open) {
      expect(Date.now() - startedAt).toBeLessThan(1_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect((await b.services.rules.compiled(projectId)).rules).toEqual(rules);
    expect(changes).toEqual([projectId]);
    const seen = await b.http.inject({
      method: 'GET',
      url: `/admin/projects/${projectId}/rules`,
      headers: owner.headers,
    });
    expect(seen.json()).toEqual(put.json());
  });
});
