/**
 * What server functions report (§16): `cds_function_calls_total{name,outcome}` and
 * `cds_function_duration_seconds{name}` on `/metrics` after calls of every outcome (an unknown
 * name never makes a series), and `GET /admin/projects/{id}/functions` (§13): the modules serving
 * the project and its calls counted from the same observations, project by project, for any
 * admin role of the project's organisation and none other.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FunctionRegistry, type ModuleSummary } from '../../src/core/functions/function-registry.js';
import { defineFunctions, reject } from '../../src/functions/index.js';
import { adminFixture } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

const registry = FunctionRegistry.of([
  {
    file: '/srv/game/functions/shared.ts',
    definition: defineFunctions({
      projects: '*',
      rpc: {
        fine: (_ctx, input) => input,
        refuse: () => reject(409, 'Not now'),
        crash: () => {
          throw new Error('boom');
        },
        hang: () => new Promise(() => undefined),
      },
    }),
  },
  {
    file: '/srv/game/functions/elsewhere.ts',
    definition: defineFunctions({ projects: [999_999], rpc: { far: () => 1 } }),
  },
]);

/** The value of the sample of `metric` whose labels include `labels`, or null when there is none. */
function sample(text: string, metric: string, labels: Record<string, string>): number | null {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${metric}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line === undefined ? null : Number(line.slice(line.lastIndexOf(' ') + 1));
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`server functions' metrics and admin view (§16, §13) on ${engine.name}`, () => {
    let t: TestApp;
    let f: Awaited<ReturnType<typeof adminFixture>>;
    const call = (name: string, headers: Record<string, string> = t.headers) =>
      t.app.http.inject({ method: 'POST', url: `/functions/${name}`, headers });
    const metrics = async () => (await t.app.http.inject({ method: 'GET', url: '/metrics' })).body;
    const view = (projectId: number, headers: Record<string, string>) =>
      t.app.http.inject({ method: 'GET', url: `/admin/projects/${projectId}/functions`, headers });

    beforeAll(async () => {
      t = await startTestApp(engine, { CDS_FUNCTION_TIMEOUT_MS: '150' }, { functions: registry });
      f = await adminFixture(t);
      const statuses = [];
      for (const name of ['fine', 'fine', 'refuse', 'crash', 'hang', 'missing'])
        statuses.push((await call(name)).statusCode);
      expect(statuses).toEqual([200, 200, 409, 500, 504, 404]);
      // The other organisation's project calls too: one more `fine` on the counter, none in this project's view.
      expect((await call('fine', f.other.headers)).statusCode).toBe(200);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('counts calls by name and outcome and times them by name; an unknown name makes no series', async () => {
      const text = await metrics();
      const calls = (name: string, outcome: string) => sample(text, 'cds_function_calls_total', { name, outcome });
      expect(calls('fine', 'ok')).toBe(3);
      expect(calls('refuse', 'rejected')).toBe(1);
      expect(calls('crash', 'failed')).toBe(1);
      expect(calls('hang', 'timed_out')).toBe(1);
      expect(calls('fine', 'failed')).toBeNull();
      expect(text).not.toContain('name="missing"');
      expect(sample(text, 'cds_function_duration_seconds_count', { name: 'fine' })).toBe(3);
      expect(sample(text, 'cds_function_duration_seconds_count', { name: 'crash' })).toBe(1);
      // A timed-out call ran for its time limit (150 ms).
      expect(sample(text, 'cds_function_duration_seconds_sum', { name: 'hang' })).toBeGreaterThanOrEqual(0.14);
      expect(sample(text, 'cds_function_duration_seconds_bucket', { name: 'hang', le: '+Inf' })).toBe(1);
      expect(text).toContain('# TYPE cds_function_duration_seconds histogram');
    });

    it('shows an admin the modules serving the project and the project’s own calls', async () => {
      const res = await view(f.projectId, f.viewer.headers);
      expect(res.statusCode, res.body).toBe(200);
      const { modules, calls } = res.json();
      // Other lists (`before`: [], …) may follow, as later versions list them; `projects` never.
      expect(modules).toEqual([
        expect.objectContaining({ file: 'shared.ts', rpc: ['crash', 'fine', 'hang', 'refuse'] }),
      ]);
      expect(modules[0]).not.toHaveProperty('projects');
      expect(calls).toEqual([
        { name: 'crash', outcome: 'failed', count: 1 },
        { name: 'fine', outcome: 'ok', count: 2 },
        { name: 'hang', outcome: 'timed_out', count: 1 },
        { name: 'refuse', outcome: 'rejected', count: 1 },
      ]);
      const other = await view(f.other.projectId, f.stranger.headers);
      expect(other.statusCode, other.body).toBe(200);
      expect(other.json().calls).toEqual([{ name: 'fine', outcome: 'ok', count: 1 }]);
      // Counted as they happen.
      await call('fine');
      expect((await view(f.projectId, f.owner.headers)).json().calls).toContainEqual({
        name: 'fine',
        outcome: 'ok',
        count: 3,
      });
    });

    it('answers any admin role and the project’s server keys; another organisation 404, no token 401', async () => {
      for (const admin of [f.owner, f.editor, f.viewer])
        expect((await view(f.projectId, admin.headers)).statusCode).toBe(200);
      const { key } = await t.app.services.serverKeys.create(f.projectId, { name: 'game', role: 'viewer' });
      expect((await view(f.projectId, { authorization: `Bearer ${key}` })).statusCode).toBe(200);
      const stranger = await view(f.projectId, f.stranger.headers);
      expect(stranger.statusCode).toBe(404);
      expect(stranger.json()).toEqual({ detail: 'Project not found' });
      expect((await view(f.projectId, {})).statusCode).toBe(401);
      expect((await view(f.projectId, t.headers)).statusCode).toBe(401);
    });

    it('passes further kinds of functions through as lists of names, never the module’s projects', async () => {
      const listed = registry.list();
      const later = listed.map((summary) => ({ ...summary, before: ['documents.write'], schedule: ['hourly'] }));
      const list = vi.spyOn(registry, 'list').mockReturnValue(later satisfies ModuleSummary[]);
      try {
        const res = await view(f.projectId, f.viewer.headers);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().modules).toEqual([
          {
            file: 'shared.ts',
            rpc: ['crash', 'fine', 'hang', 'refuse'],
            before: ['documents.write'],
            after: [],
            schedule: ['hourly'],
          },
        ]);
      } finally {
        list.mockRestore();
      }
    });
  });
}
