/** Access rules (§9) on the realtime WebSocket (§4): denials, and rule or role changes reaching open sockets. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { engines } from '../support/engines.js';
import { freshProject, type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';
import { MemoryRulesSource, TREE_RULES } from '../support/rules.js';
import type { TestSocket } from '../support/ws-client.js';

const DENIED = 'Permission denied by rules';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`realtime rules over the WebSocket (§9) on ${engine.name}`, () => {
    // One app per engine; each test gets a project of its own on it (freshProject).
    let shared: RealtimeTestApp;
    let t: RealtimeTestApp;
    let rules: MemoryRulesSource;
    let me: string;
    let ws: TestSocket;
    beforeAll(async () => {
      rules = new MemoryRulesSource();
      shared = await startRealtimeApp(engine, {}, { rules });
    });
    afterAll(async () => {
      await shared?.close();
    });
    beforeEach(async () => {
      t = await freshProject(shared);
      me = String(t.userId);
      rules.set(t.project.projectId, TREE_RULES);
      await t.app.services.tree.set(t.project.projectId, 'vault', {
        open: { shared: true },
        closed: { shared: false },
      });
      ws = await t.socket();
    });
    afterEach(async () => {
      await ws?.close();
    });

    const write = (path: string, value: unknown) => t.app.services.tree.set(t.project.projectId, path, value as null);
    const stored = async (path: string) => (await t.app.services.tree.get(t.project.projectId, path)).value;

    it('a refused if_match tells the current etag and value only to a caller who may read the path', async () => {
      const drop = { match: 'drop/{name}', allow: { write: 'true' } };
      rules.set(t.project.projectId, { realtime: [...TREE_RULES.realtime, drop] });
      await write('drop/box', { secret: 1 });
      await write('scores/s', 5);
      const hidden = await ws.request({ action: 'set', path: 'drop/box', value: 2, if_match: 'stale', id: 'p1' });
      expect(hidden).toEqual({ event: 'error', id: 'p1', message: 'Precondition failed' });
      const shown = await ws.request({ action: 'set', path: 'scores/s', value: 6, if_match: 'stale', id: 'p2' });
      expect(shown).toMatchObject({ event: 'error', id: 'p2', message: 'Precondition failed', value: 5 });
      expect(shown).toHaveProperty('etag');
      expect(await stored('drop/box')).toEqual({ secret: 1 });
    });

    it('a denied subscribe answers error with its id, no init, and registers nothing', async () => {
      expect(await ws.request({ action: 'subscribe', path: 'users/someone', id: 's1' })).toEqual({
        event: 'error',
        id: 's1',
        message: DENIED,
      });
      expect(await ws.request({ action: 'subscribe', path: 'vault/closed', id: 's2' })).toEqual({
        event: 'error',
        id: 's2',
        message: DENIED,
      });
      expect(await ws.request({ action: 'subscribe', path: `users/${me}`, id: 's3' })).toMatchObject({
        event: 'init',
        value: null,
      });
      expect(await ws.request({ action: 'subscribe', path: 'vault/open', id: 's4' })).toMatchObject({
        event: 'init',
        value: { shared: true },
      });
      await t.app.services.tree.patch(t.project.projectId, '', {
        'users/someone': 1,
        'vault/closed/x': 2,
        [`users/${me}/x`]: 3,
      });
      await ws.waitFor((m) => m.event === 'update' && m.path === `users/${me}/x`);
      await sleep(50);
      expect(ws.events('init').map((m) => m.path)).toEqual([`users/${me}`, 'vault/open']);
      expect(ws.events('update').map((m) => m.path)).toEqual([`users/${me}/x`]);
    });

    it('denied set, patch and delete answer error with the id and write nothing', async () => {
      await write('users/someone', { keep: 1 });
      const attempts = [
        { action: 'set', path: 'users/someone/keep', value: 2 },
        { action: 'patch', path: 'users', value: { [`${me}/a`]: 1, 'someone/keep': 2 } },
        { action: 'delete', path: 'users/someone' },
        { action: 'set', path: 'scores/a', value: 100 },
      ];
      for (const [index, attempt] of attempts.entries()) {
        expect(await ws.request({ ...attempt, id: index })).toEqual({ event: 'error', id: index, message: DENIED });
      }
      expect(await stored('users')).toEqual({ someone: { keep: 1 } });
      expect(await stored('scores')).toBeNull();
      expect(await ws.request({ action: 'patch', path: `users/${me}`, value: { a: 1 }, id: 'ok' })).toMatchObject({
        event: 'ack',
      });
      expect(await ws.request({ action: 'set', path: 'scores/a', value: 1, id: 'ok2' })).toMatchObject({
        event: 'ack',
      });
    });

    it('a ruleset change cancels a subscription it no longer grants; nothing follows', async () => {
      await ws.request({ action: 'subscribe', path: 'public/news', id: 1 });
      await ws.request({ action: 'subscribe', path: `users/${me}`, id: 2 });
      const started = Date.now();
      rules.set(t.project.projectId, {
        realtime: TREE_RULES.realtime.filter((rule) => rule.match !== 'public/{rest=**}'),
      });
      expect(await ws.waitFor((m) => m.event === 'cancel', { timeoutMs: 5_000 })).toEqual({
        event: 'cancel',
        path: 'public/news',
        message: DENIED,
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      // One commit touching both: the granted subscription's update arrives, the cancelled one's never does.
      await t.app.services.tree.patch(t.project.projectId, '', { 'public/news': 'x', [`users/${me}/n`]: 1 });
      await ws.waitFor((m) => m.event === 'update' && m.path === `users/${me}/n`);
      await sleep(50);
      expect(ws.events('update').map((m) => m.path)).toEqual([`users/${me}/n`]);
      expect(ws.events('cancel')).toHaveLength(1);
    });

    it('a role change cancels a grant that depended on the role, within 5 s', { timeout: 30_000 }, async () => {
      const { accounts } = t.app.services;
      const projectId = t.project.projectId;
      await accounts.createRole(projectId, 'admin', ['client.realtime']);
      await accounts.setUserRoles(projectId, t.userId, ['player', 'admin']);
      const admin = await t.socket();
      try {
        expect(await admin.request({ action: 'subscribe', path: 'admin/panel', id: 1 })).toMatchObject({
          event: 'init',
        });
        await admin.request({ action: 'subscribe', path: `users/${me}`, id: 2 });
        await accounts.setUserRoles(projectId, t.userId, ['player']);
        const started = Date.now();
        // Roles are remembered 2.5 s and grants checked every 2.5 s: 5 s at worst, plus slack for a loaded machine.
        const cancel = await admin.waitFor((m) => m.event === 'cancel', { timeoutMs: 10_000 });
        expect(cancel).toEqual({ event: 'cancel', path: 'admin/panel', message: DENIED });
        expect(Date.now() - started).toBeLessThan(6_500);
        await t.app.services.tree.patch(projectId, '', { 'admin/panel': 1, [`users/${me}/n`]: 1 });
        await admin.waitFor((m) => m.event === 'update' && m.path === `users/${me}/n`);
        await sleep(50);
        expect(admin.events('update').map((m) => m.path)).toEqual([`users/${me}/n`]);
      } finally {
        await admin.close();
      }
    });

    it('grants are not re-evaluated on data changes', async () => {
      await ws.request({ action: 'subscribe', path: 'vault/open', id: 1 });
      await write('vault/open/shared', false);
      await ws.waitFor((m) => m.event === 'update' && m.path === 'vault/open/shared');
      // A ruleset change re-checks it: now the value denies.
      rules.set(t.project.projectId, TREE_RULES);
      expect(await ws.waitFor((m) => m.event === 'cancel', { timeoutMs: 5_000 })).toMatchObject({
        path: 'vault/open',
      });
    });

    it('a subscription resumed with since is checked too', async () => {
      const version = (await t.app.services.tree.set(t.project.projectId, 'users/someone', 1)).version;
      expect(await ws.request({ action: 'subscribe', path: 'users/someone', since: version, id: 'r' })).toEqual({
        event: 'error',
        id: 'r',
        message: DENIED,
      });
      expect(await ws.request({ action: 'subscribe', path: 'vault/closed', since: version, id: 'v' })).toMatchObject({
        event: 'error',
      });
      expect(await ws.request({ action: 'subscribe', path: 'vault/open', since: version, id: 'o' })).toMatchObject({
        event: 'resume',
      });
    });
  });
}
