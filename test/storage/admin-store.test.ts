/** AdminStore, the document store's admin pages and LeaderboardAdminStore on every engine (§6). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocumentJson } from '../../src/core/documents/document-service.js';
import { redefineRewrite, resetRewrite } from '../../src/core/leaderboards/listing-rewrite.js';
import { parseDocumentPath } from '../../src/core/paths.js';
import type { Storage } from '../../src/core/ports.js';
import { upsert } from '../support/document-writes.js';
import { engines } from '../support/engines.js';
import { createBoard, definition, league } from '../support/leaderboards.js';
import { created } from '../support/outcomes.js';

const ROLE = { name: 'player', permissions: [] };

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`admin storage on ${engine.name}`, () => {
    let storage: Storage;
    let orgA = 0;
    let orgB = 0;
    let projectA = 0;
    let projectB = 0;
    beforeAll(async () => {
      storage = await engine.create();
      orgA = (await storage.accounts.ensureOrganisation('a')).id;
      orgB = (await storage.accounts.ensureOrganisation('b')).id;
      projectA = (await storage.accounts.createProject(orgA, 'pa', ROLE)).id;
      projectB = (await storage.accounts.createProject(orgB, 'pb', ROLE)).id;
    });
    afterAll(async () => {
      if (storage) await engine.destroy(storage);
    });

    it('creates admins with unique emails and finds them by email and id', async () => {
      const admin = created(await storage.admins.createAdmin(orgA, 'ann@a.example', 'hash-1', 'editor'));
      expect(admin).toEqual({ id: expect.any(Number), orgId: orgA, email: 'ann@a.example', role: 'editor' });
      expect(await storage.admins.createAdmin(orgB, 'ann@a.example', 'hash-2', 'owner')).toBe('taken');
      expect(await storage.admins.findAdminByEmail('ann@a.example')).toEqual({ ...admin, passwordHash: 'hash-1' });
      expect(await storage.admins.findAdminById(admin.id)).toEqual(admin);
      expect(await storage.admins.findAdminByEmail('nobody@a.example')).toBeNull();
      expect(await storage.admins.findAdminById(999_999)).toBeNull();
    });

    it('finds organisations and lists only their own projects', async () => {
      expect(await storage.admins.getOrganisation(orgA)).toEqual({ id: orgA, name: 'a' });
      expect(await storage.admins.getOrganisation(999_999)).toBeNull();
      const second = await storage.accounts.createProject(orgA, 'pa2', ROLE);
      expect(await storage.admins.listProjects(orgA)).toEqual([
        { id: projectA, orgId: orgA, name: 'pa' },
        { id: second.id, orgId: orgA, name: 'pa2' },
      ]);
      expect(await storage.admins.listProjects(orgB)).toEqual([{ id: projectB, orgId: orgB, name: 'pb' }]);
    });

    it('pages users by id and counts them per project', async () => {
      for (let i = 0; i < 5; i++) {
        await storage.accounts.createUser(projectA, {
          username: `u${i}aa`,
          passwordHash: null,
          nickname: `n${i}`,
          roles: ['player'],
        });
      }
      await storage.accounts.createUser(projectB, {
        username: 'elsewhere',
        passwordHash: null,
        nickname: 'e',
        roles: [],
      });
      expect(await storage.admins.countUsers(projectA)).toBe(5);
      expect(await storage.admins.countUsers(projectB)).toBe(1);
      const page = await storage.admins.listUsers(projectA, 1, 2);
      expect(page.map((u) => u.username)).toEqual(['u1aa', 'u2aa']);
      expect(page[0]).toEqual({
        id: 2,
        projectId: projectA,
        username: 'u1aa',
        nickname: 'n1',
        avatarUrl: null,
        roles: ['player'],
        disabled: false,
        tokenEpoch: 0,
      });
      expect(await storage.admins.listUsers(projectA, 5, 10)).toEqual([]);
    });

    it('lists clients oldest first and replaces a secret only within its project', async () => {
      await storage.accounts.createClient(projectA, 'cid_first', 'h1');
      await new Promise((resolve) => setTimeout(resolve, 5));
      await storage.accounts.createClient(projectA, 'cid_second', 'h2');
      await storage.accounts.createClient(projectB, 'cid_theirs', 'h3');
      const clients = await storage.admins.listClients(projectA);
      expect(clients.map((c) => c.clientId)).toEqual(['cid_first', 'cid_second']);
      expect(clients[0]?.createdAt).toBeLessThanOrEqual(clients[1]?.createdAt ?? 0);
      expect(await storage.admins.replaceClientSecret(projectA, 'cid_second', 'h2-new')).toBe(true);
      expect(await storage.accounts.findClient('cid_second')).toEqual({ projectId: projectA, secretHash: 'h2-new' });
      expect(await storage.admins.replaceClientSecret(projectA, 'cid_theirs', 'stolen')).toBe(false);
      expect(await storage.accounts.findClient('cid_theirs')).toEqual({ projectId: projectB, secretHash: 'h3' });
    });

    it('pages collection names and counts direct children, project by project', async () => {
      const put = (project: number, path: string) => upsert(storage.documents, project, parseDocumentPath(path), {});
      for (const path of ['r/1/b/x', 'r/1/a/x', 'r/1/a/y', 'r/1/c/x/deep/z', 'r/2/d/x', 'top/t'])
        await put(projectA, path);
      await put(projectB, 'r/1/zz/x');
      expect(await storage.documents.collectionNames(projectA, 'r/1', 0, 2)).toEqual({ names: ['a', 'b'], total: 3 });
      expect(await storage.documents.collectionNames(projectA, 'r/1', 2, 2)).toEqual({ names: ['c'], total: 3 });
      expect(await storage.documents.collectionNames(projectA, '', 0, 10)).toEqual({ names: ['r', 'top'], total: 2 });
      expect(await storage.documents.collectionNames(projectA, 'r/9', 0, 10)).toEqual({ names: [], total: 0 });
      expect(await storage.documents.countChildren(projectA, 'r/1', 'a')).toBe(2);
      // `c` is listed (it holds a deeper document) but has no direct child.
      expect(await storage.documents.countChildren(projectA, 'r/1', 'c')).toBe(0);
      expect(await storage.documents.countChildren(projectA, '', 'top')).toBe(1);
      expect(await storage.documents.countChildren(projectB, 'r/1', 'a')).toBe(0);
      const second = await storage.documents.list(projectA, { parent: 'r/1', collection: 'a', limit: 5, offset: 1 });
      expect(second.map((d) => parseDocumentJson(d).path)).toEqual(['r/1/a/y']);
    });

    it('redefines a board: new leagues re-home entries by stat, the revision moves on', async () => {
      const board = await createBoard(
        storage.leaderboards,
        projectA,
        definition('levels', { leagues: [league('low', 0), league('high', 1, { minStat: 100 })] }),
        { start: 0, end: null },
      );
      for (const [userId, stat] of [
        [1, 50],
        [2, 150],
        [3, 500],
      ] as const) {
        const entry = { userId, statValue: stat, league: stat >= 100 ? 'high' : 'low', updatedAt: userId };
        await storage.leaderboards.writeEntry(board.id, {
          periodStart: 0,
          revision: board.revision,
          previous: null,
          next: entry,
          score: -stat,
          assign: null,
        });
      }
      const next = definition('levels', {
        name: 'Levels',
        leagues: [league('low', 0), league('mid', 1, { minStat: 40 }), league('top', 2, { minStat: 300 })],
      });
      expect(await storage.leaderboardAdmin.redefine(board.id, next, redefineRewrite(next))).toBe(true);
      const stored = await storage.leaderboards.get(projectA, 'levels');
      expect(stored?.revision).toBe(board.revision + 1);
      expect(stored?.name).toBe('Levels');
      expect(stored?.leagues.map((l) => l.slug)).toEqual(['low', 'mid', 'top']);
      const leagues = await Promise.all(
        [1, 2, 3].map(async (u) => (await storage.leaderboards.standing(board.id, u)).entry?.league),
      );
      expect(leagues).toEqual(['mid', 'mid', 'top']);
      expect(await storage.leaderboardAdmin.redefine(999_999, next, redefineRewrite(next))).toBe(false);
      expect(await storage.leaderboardAdmin.listSlugs(projectA)).toEqual(['levels']);
      expect(await storage.leaderboardAdmin.listSlugs(projectB)).toEqual([]);
    });

    it('redefines a board’s anti-cheat settings (§9), null clearing a bound', async () => {
      const board = await createBoard(
        storage.leaderboards,
        projectA,
        definition('guarded', { clientSubmit: false, statMin: 1, statMax: 10 }),
        { start: 0, end: null },
      );
      const loosened = definition('guarded', { clientSubmit: true, statMin: null, statMax: 99.5 });
      expect(await storage.leaderboardAdmin.redefine(board.id, loosened, redefineRewrite(loosened))).toBe(true);
      expect(await storage.leaderboards.get(projectA, 'guarded')).toMatchObject({
        clientSubmit: true,
        statMin: null,
        statMax: 99.5,
        revision: board.revision + 1,
      });
      const guarded = definition('guarded', { clientSubmit: false });
      expect(await storage.leaderboardAdmin.redefine(board.id, guarded, redefineRewrite(guarded))).toBe(true);
      expect(await storage.leaderboards.get(projectA, 'guarded')).toMatchObject({
        clientSubmit: false,
        statMin: null,
        statMax: null,
      });
    });

    it('takes the reset lease of a running period and ends it at `now`, once', async () => {
      const board = await createBoard(storage.leaderboards, projectA, definition('early'), { start: 1000, end: null });
      expect(await storage.leaderboardAdmin.beginResetNow(board.id, 999, { owner: 'me', now: 5000, until: 6000 })).toBe(
        false,
      );
      expect(
        await storage.leaderboardAdmin.beginResetNow(board.id, 1000, { owner: 'me', now: 5000, until: 6000 }),
      ).toBe(true);
      expect((await storage.leaderboards.get(projectA, 'early'))?.period).toEqual({ start: 1000, end: 5000 });
      // The lease is held until 6000: nobody else may start a reset before then.
      expect(
        await storage.leaderboardAdmin.beginResetNow(board.id, 1000, { owner: 'other', now: 5500, until: 6500 }),
      ).toBe(false);
      const done = await storage.leaderboards.resetPeriod(board.id, {
        owner: 'me',
        periodStart: 1000,
        next: { start: 5000, end: null },
        archivedAt: 5000,
        plan: resetRewrite,
      });
      expect(done).toBe(true);
      expect(await storage.leaderboards.archivedPeriod(board.id, 1000)).toEqual({
        start: 1000,
        end: 5000,
        archivedAt: 5000,
      });
    });
  });
}
