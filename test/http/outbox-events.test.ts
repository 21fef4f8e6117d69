/**
 * The leaderboard and account events of the outbox (§16) on every engine, as after handlers
 * receive them: `leaderboards.stat` for each submission that changed a stat (its value, its rank
 * and league as the commit left them), `leaderboards.reset` for an ended period, `user.created`
 * for a sign-up, a device's first guest login and an account made by the admin API, and an
 * import's documents and tree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FunctionRegistry } from '../../src/core/functions/function-registry.js';
import { defineFunctions, type JsonObject } from '../../src/functions/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';
import { definition } from '../support/leaderboards.js';
import { addPlayer } from '../support/rules.js';

const received: { type: string; data: JsonObject }[] = [];

const handlers = defineFunctions({
  projects: '*',
  after: {
    'leaderboards.stat': (_ctx, event) => void received.push(event as (typeof received)[number]),
    'leaderboards.reset': (_ctx, event) => void received.push(event as (typeof received)[number]),
    'user.created': (_ctx, event) => void received.push(event as (typeof received)[number]),
    'document.written:imported': (_ctx, event) => void received.push(event as (typeof received)[number]),
    'realtime.written': (_ctx, event) => void received.push(event as (typeof received)[number]),
  },
});

async function eventually<T>(find: () => T | undefined, ms = 8000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error('timed out waiting for the handlers');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`leaderboard and account events (§16) on ${engine.name}`, () => {
    let t: TestApp;
    const post = (url: string, payload: unknown, headers = t.headers) =>
      t.app.http.inject({ method: 'POST', url, headers, payload: payload as object });
    const ofType = (type: string, match: (data: JsonObject) => boolean) =>
      received.filter((event) => event.type === type && match(event.data));

    beforeAll(async () => {
      received.length = 0;
      const functions = FunctionRegistry.of([{ file: 'events.ts', definition: handlers }]);
      t = await startTestApp(engine, {}, { functions });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('leaderboards.stat: each submission that changed a stat, with its rank and league after it', async () => {
      const { projectId } = t.project;
      await t.app.services.leaderboards.create(projectId, definition('latest', { operator: 'latest' }));
      const other = await addPlayer(t, `stat_rival_${engine.name}`);
      expect((await post('/leaderboards/latest/stats', { value: 100 })).statusCode).toBe(200);
      expect((await post('/leaderboards/latest/stats', { value: 50 }, other.headers)).statusCode).toBe(200);
      // Down from 100 to 10: behind the rival's 50 (its own 100 no longer counts).
      expect((await post('/leaderboards/latest/stats', { value: 10 })).json().rank).toBe(2);
      const mine = (value: number) => (data: JsonObject) => data.user_id === t.userId && data.value === value;
      const down = await eventually(() => ofType('leaderboards.stat', mine(10))[0]);
      expect(down.data).toEqual({ slug: 'latest', user_id: t.userId, value: 10, rank: 2, league: 'global' });
      expect(ofType('leaderboards.stat', mine(100))[0]?.data.rank).toBe(1);
      expect(ofType('leaderboards.stat', (data) => data.user_id === other.userId)[0]?.data.rank).toBe(2);
      // A submission that changes nothing (a lower value on a `best` board) records nothing.
      await t.app.services.leaderboards.create(projectId, definition('best'));
      await post('/leaderboards/best/stats', { value: 7 });
      await post('/leaderboards/best/stats', { value: 3 });
      await eventually(() => ofType('leaderboards.stat', (data) => data.slug === 'best')[0]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(ofType('leaderboards.stat', (data) => data.slug === 'best').map((e) => e.data.value)).toEqual([7]);
    });

    it('leaderboards.reset: the period that ended', async () => {
      const { projectId } = t.project;
      const board = await t.app.services.leaderboards.create(projectId, definition('weekly', { reset: 'weekly' }));
      await t.app.services.leaderboards.admin.resetNow(projectId, 'weekly');
      const reset = await eventually(() => ofType('leaderboards.reset', (data) => data.slug === 'weekly')[0]);
      const period = reset.data.period as { start: string; end: string };
      expect(period.start).toBe(new Date(board.period.start).toISOString());
      expect(Date.parse(period.end)).toBeLessThanOrEqual(Date.now());
    });

    it('user.created: a sign-up, a first guest login (not the next), an account made by the admin API', async () => {
      const client = {
        'x-client-id': t.headers['x-client-id'] ?? '',
        'x-client-secret': t.headers['x-client-secret'] ?? '',
      };
      const signup = await post('/auth/signup', { username: 'events_ann', password: 'password-123' }, client);
      expect(signup.statusCode).toBe(201);
      const made = await eventually(() => ofType('user.created', (data) => data.username === 'events_ann')[0]);
      expect(made.data).toEqual({ user_id: signup.json().user.id, username: 'events_ann' });
      const guest = await post('/auth/guest', { device_id: 'events-device' }, client);
      await post('/auth/guest', { device_id: 'events-device' }, client);
      const guestId = guest.json().user.id;
      await eventually(() => ofType('user.created', (data) => data.user_id === guestId)[0]);
      const admin = await t.app.services.accounts.createUser(t.project.projectId, {
        username: 'events_admin_made',
        password: 'password-123',
      });
      await eventually(() => ofType('user.created', (data) => data.user_id === admin.id)[0]);
      expect(ofType('user.created', (data) => data.user_id === guestId)).toHaveLength(1);
    });

    it('an import: document.written for each document, one realtime.written of the tree', async () => {
      const { projectId } = t.project;
      await t.app.services.documents.put(projectId, 'imported/a', { n: 1 });
      await t.app.services.documents.put(projectId, 'imported/b', { n: 2 });
      await t.app.services.tree.set(projectId, 'room', { x: 1 });
      const file = await t.app.services.transfer.exportProject(projectId);
      const { project: target } = await t.otherProject();
      // Documents and tree only: the target project has users and boards of its own.
      await t.app.services.transfer.importProject(target.projectId, { ...file, users: [], leaderboards: [] });
      const inTarget = (type: string) =>
        received.filter(
          (event) =>
            event.type === type && (event as unknown as { project_id: number }).project_id === target.projectId,
        );
      await eventually(() => (inTarget('document.written').length === 2 ? true : undefined));
      expect(
        inTarget('document.written')
          .map((e) => e.data.path)
          .sort(),
      ).toEqual(['imported/a', 'imported/b']);
      const tree = await eventually(() => inTarget('realtime.written')[0]);
      expect(tree.data).toMatchObject({ path: '', value: { room: { x: 1 } } });
    });
  });
}
