/**
 * §8 on every engine: export → import into an empty project reproduces it exactly; a bad file
 * changes nothing and names its first bad item; imports upsert into a project with data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitChannel, decodeCommits } from '../../src/core/realtime/commit-event.js';
import { OPEN_RULESET } from '../../src/core/rules/ruleset.js';
import type { ProjectExport } from '../../src/core/transfer/export-format.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';
import { definition, ladder } from '../support/leaderboards.js';

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`export and import (§8) on ${engine.name}`, () => {
    let t: TestApp;
    let source: ProjectExport;
    const emptyProject = async (name: string) =>
      (await t.app.services.accounts.createProject('org-transfer', name)).project_id;

    beforeAll(async () => {
      t = await startTestApp(engine, { CDS_LEADERBOARD_RESET_CHECK_MS: '0' });
      const p = t.project.projectId;
      const { documents, tree, leaderboards, accounts } = t.app.services;
      await documents.put(p, 'users/ann', { level: 3, tags: ['a', 'b'], nested: { x: null } });
      await documents.put(p, 'users/ann/posts/p1', { title: 'hi' });
      await documents.put(p, 'zeta/z', {});
      await tree.set(p, 'game/state', { round: 2, players: { a: true }, list: [1, 2] });
      await tree.set(p, 'motd', 'hello');
      await accounts.createRole(p, 'moderator', ['client.documents']);
      const bob = await accounts.createUser(p, {
        username: 'Bob',
        password: 'password-123',
        roles: ['player', 'moderator'],
      });
      const cat = await accounts.createUser(p, { username: 'cat', password: 'password-123' });
      await t.app.services.storage.accounts.updateProfile(p, bob.id, {
        nickname: 'Bobby',
        avatarUrl: 'https://x/b.png',
      });
      await leaderboards.create(
        p,
        definition('score', { sort: 'asc', operator: 'latest', clientSubmit: false, statMin: 0, statMax: 1000.5 }),
      );
      await leaderboards.create(p, ladder('ladder'));
      await leaderboards.submit(p, 'score', bob.id, 12.5, 'server');
      await leaderboards.submit(p, 'score', cat.id, 9.75, 'server');
      await leaderboards.submit(p, 'score', t.userId, 12.5, 'server');
      await leaderboards.submit(p, 'ladder', cat.id, 3);
      source = await t.app.services.transfer.exportProject(p);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('exports every area in the §8 shape', () => {
      expect(source.format).toBe('cds-export');
      expect(source.version).toBe(1);
      expect(source.documents.map((d) => d.path)).toEqual(['users/ann', 'users/ann/posts/p1', 'zeta/z']);
      expect(source.realtime).toEqual({
        game: { state: { round: 2, players: { a: true }, list: [1, 2] } },
        motd: 'hello',
      });
      const bob = source.users.find((u) => u.username === 'Bob');
      expect(bob).toMatchObject({ nickname: 'Bobby', avatar_url: 'https://x/b.png', roles: ['player', 'moderator'] });
      expect(source.users.map((u) => u.id)).toEqual([...source.users.map((u) => u.id)].sort((a, b) => a - b));
      const [ladderBoard, score] = source.leaderboards;
      expect(score).toMatchObject({
        slug: 'score',
        type: 'CONTINUOUS',
        sort: 'asc',
        operator: 'latest',
        reset: 'none',
        assignments: [],
        client_submit: false,
        stat_min: 0,
        stat_max: 1000.5,
      });
      expect(ladderBoard).toMatchObject({ client_submit: true, stat_min: null, stat_max: null });
      expect(score?.leagues).toEqual([
        { slug: 'global', name: 'GLOBAL', order: 0, min_stat: null, promote_top: null, demote_bottom: null },
      ]);
      expect(score?.entries).toHaveLength(3);
      expect(score?.entries[0]?.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(ladderBoard?.rewards[0]).toEqual({ league: 'gold', rank_from: 1, rank_to: 1, reward: { gems: 100 } });
      expect(ladderBoard?.assignments).toEqual([{ user_id: ladderBoard?.entries[0]?.user_id, league: 'bronze' }]);
    });

    it('reproduces the project exactly in an empty project, ranks included', async () => {
      const target = await emptyProject('copy');
      const summary = await t.app.services.transfer.importProject(target, JSON.parse(JSON.stringify(source)));
      expect(summary).toEqual({
        documents: 3,
        users: source.users.length,
        leaderboards: 2,
        entries: 4,
        realtime_paths: 2,
        rules: true,
        indexes: 0,
        webhooks: 0,
        webhook_secrets: [],
      });
      // `rules: null` (never set) imports as the open ruleset, set as a revision (§9 Details).
      expect(source.rules).toBeNull();
      expect(await t.app.services.transfer.exportProject(target)).toEqual({ ...source, rules: OPEN_RULESET });
      const users = await t.app.services.leaderboards.users(target, 1, 'score', {});
      expect(users.users.map((u) => [u.rank, u.stat_value])).toEqual([
        [1, 9.75],
        [2, 12.5],
        [3, 12.5],
      ]);
      // Imported users have no password, keep their ids, and later sign-ups get new ids.
      const bob = source.users.find((u) => u.username === 'Bob');
      expect((await t.app.services.storage.accounts.findUserByUsername(target, 'bob'))?.passwordHash).toBeNull();
      const fresh = await t.app.services.accounts.createUser(target, {
        username: 'newcomer',
        password: 'password-123',
      });
      expect(fresh.id).toBeGreaterThan(Math.max(...source.users.map((u) => u.id)));
      expect(bob).toBeDefined();
    });

    it('is all or nothing: a bad item late in the file changes nothing and is named', async () => {
      const target = await emptyProject('bad');
      const before = await t.app.services.transfer.exportProject(target);
      const broken = structuredClone(source);
      (broken.leaderboards[1] as ProjectExport['leaderboards'][number]).entries.push({
        user_id: 987654,
        stat_value: 1,
        league: 'global',
        updated_at: '2026-11-22T10:00:00.000Z',
      });
      await expect(t.app.services.transfer.importProject(target, broken)).rejects.toThrow(
        'Invalid import: leaderboards[1].entries[3].user_id: user 987654 does not exist',
      );
      expect(await t.app.services.transfer.exportProject(target)).toEqual(before);
    });

    it.each([
      [(f: Record<string, unknown>) => Object.assign(f, { format: 'other' }), 'format'],
      [(f: ProjectExport) => Object.assign(f.leaderboards[0] ?? {}, { type: 'WEEKLY' }), 'leaderboards[0].type'],
      [
        (f: ProjectExport) => Object.assign(f.leaderboards[1]?.entries[0] ?? {}, { stat_value: 'high' }),
        'leaderboards[1].entries[0].stat_value',
      ],
      [
        (f: ProjectExport) => Object.assign(f.leaderboards[1]?.entries[1] ?? {}, { league: 'gold' }),
        'leaderboards[1].entries[1].league',
      ],
      [(f: ProjectExport) => Object.assign(f.documents[1] ?? {}, { path: 'users/ann/posts' }), 'documents[1].path'],
      [(f: ProjectExport) => f.users.push({ ...(f.users[0] as ProjectExport['users'][number]) }), 'users[3].id'],
      [(f: ProjectExport) => Object.assign(f.leaderboards[0] ?? {}, { leagues: [] }), 'leaderboards[0].leagues'],
      [
        (f: ProjectExport) => f.leaderboards[1]?.assignments.push({ user_id: 1, league: 'global' }),
        'leaderboards[1].assignments[0]',
      ],
      [(f: ProjectExport) => Object.assign(f.leaderboards[1] ?? {}, { stat_min: 2000 }), 'leaderboards[1].stat_min'],
      [
        (f: ProjectExport) => Object.assign(f.leaderboards[0] ?? {}, { client_submit: 'yes' }),
        'leaderboards[0].client_submit',
      ],
      [(f: ProjectExport) => Object.assign(f.leaderboards[0] ?? {}, { stat_max: '10' }), 'leaderboards[0].stat_max'],
    ] as const)('rejects a malformed file naming the item (%#)', async (mutate, at) => {
      const target = await emptyProject(`malformed-${at}`);
      const file = structuredClone(source);
      (mutate as (f: ProjectExport) => unknown)(file);
      const error = await t.app.services.transfer.importProject(target, file).catch((e: unknown) => e);
      expect(String((error as Error).message)).toMatch(
        new RegExp(`^Invalid import: ${at.replace(/[[\].]/g, '\\$&')}[:.]`),
      );
      expect((await t.app.services.transfer.exportProject(target)).users).toEqual([]);
    });

    it('commits the imported tree as one versioned write and announces it to live subscribers', async () => {
      const target = await emptyProject('announced');
      const heard: string[] = [];
      const stop = await t.app.services.bus.subscribe(commitChannel(target), (message) => heard.push(message));
      try {
        await t.app.services.transfer.importProject(target, source);
      } finally {
        await stop();
      }
      const version = await t.app.services.tree.currentVersion(target);
      expect(version).toBeGreaterThan(0);
      expect(heard.flatMap((message) => decodeCommits(message) ?? [])).toEqual([
        expect.objectContaining({
          projectId: target,
          version,
          changes: expect.arrayContaining([{ path: 'motd', value: 'hello' }]),
        }),
      ]);
      // The import is not kept in the change log: resuming from before it is a snapshot (null);
      // from it, the log covers what follows.
      expect(await t.app.services.tree.changesSince(target, 0)).toBeNull();
      expect(await t.app.services.tree.changesSince(target, version)).toEqual({ version, commits: [] });
      await t.app.services.tree.set(target, 'motd', 'after');
      expect(await t.app.services.tree.changesSince(target, version)).toMatchObject({
        version: version + 1,
        commits: [{ version: version + 1 }],
      });
    });

    it('upserts into a project with data, and refuses an id held by another username', async () => {
      const target = await emptyProject('upsert');
      await t.app.services.transfer.importProject(target, source);
      const changed = structuredClone(source);
      (changed.documents[0] as { data: object }).data = { level: 99 };
      (changed.leaderboards[1] as ProjectExport['leaderboards'][number]).entries = [];
      changed.realtime = { motd: 'bye' };
      await t.app.services.transfer.importProject(target, changed);
      const after = await t.app.services.transfer.exportProject(target);
      expect(after.documents[0]?.data).toEqual({ level: 99 });
      expect(after.leaderboards[1]?.entries).toEqual([]);
      expect(after.realtime).toEqual({
        game: { state: { round: 2, players: { a: true }, list: [1, 2] } },
        motd: 'bye',
      });
      const clash = structuredClone(source);
      (clash.users[0] as { username: string }).username = 'someone-else';
      (clash.documents[0] as { data: object }).data = { level: -1 };
      await expect(t.app.services.transfer.importProject(target, clash)).rejects.toThrow(
        /users\[0\]\.id: user \d+ exists with another username/,
      );
      expect((await t.app.services.transfer.exportProject(target)).documents[0]?.data).toEqual({ level: 99 });
    });

    it('serves the boards an import replaced afresh at once, not from the board cache', async () => {
      const target = await emptyProject('replaced');
      await t.app.services.transfer.importProject(target, source);
      const { leaderboards } = t.app.services;
      const meta = async () => (await leaderboards.bundle(target, 1, 'score', { include: ['meta'] })).meta;
      expect(await meta()).toMatchObject({ name: 'Board score', operator: 'latest' });
      const changed = structuredClone(source);
      Object.assign(changed.leaderboards.find((board) => board.slug === 'score') as object, {
        name: 'Renamed',
        operator: 'best',
      });
      await t.app.services.transfer.importProject(target, changed);
      expect(await meta()).toMatchObject({ name: 'Renamed', operator: 'best' });
    });

    it('imports a file from before anti-cheat boards (no client_submit, stat_min, stat_max) with the defaults', async () => {
      const older = structuredClone(source) as { leaderboards: Record<string, unknown>[] };
      for (const board of older.leaderboards) {
        delete board.client_submit;
        delete board.stat_min;
        delete board.stat_max;
      }
      const fresh = await emptyProject('older-file');
      await t.app.services.transfer.importProject(fresh, older);
      const imported = await t.app.services.transfer.exportProject(fresh);
      for (const board of imported.leaderboards) {
        expect(board).toMatchObject({ client_submit: true, stat_min: null, stat_max: null });
      }
      // A board replaced by such a file is replaced whole: its anti-cheat settings go back to the defaults.
      const replaced = await emptyProject('older-over-newer');
      await t.app.services.transfer.importProject(replaced, source);
      await t.app.services.transfer.importProject(replaced, older);
      const score = (await t.app.services.transfer.exportProject(replaced)).leaderboards[1];
      expect(score).toMatchObject({ slug: 'score', client_submit: true, stat_min: null, stat_max: null });
      expect(score?.entries).toHaveLength(3);
      const me = await t.app.services.leaderboards.submit(replaced, 'score', t.userId, -5);
      expect(me.stat_value).toBe(-5);
    });

    it('imports entries outside the bounds (they govern submissions only), and a replacement sets new bounds', async () => {
      const target = await emptyProject('narrowed');
      const narrowed = structuredClone(source);
      Object.assign(narrowed.leaderboards[1] as object, { client_submit: true, stat_min: 10, stat_max: 11 });
      await t.app.services.transfer.importProject(target, narrowed);
      const board = await t.app.services.leaderboards.admin.get(target, 'score');
      expect(board).toMatchObject({ clientSubmit: true, statMin: 10, statMax: 11 });
      expect(
        (await t.app.services.transfer.exportProject(target)).leaderboards[1]?.entries.map((e) => e.stat_value),
      ).toEqual(source.leaderboards[1]?.entries.map((e) => e.stat_value));
      await expect(t.app.services.leaderboards.submit(target, 'score', t.userId, 12)).rejects.toMatchObject({
        code: 'validation',
      });
      expect((await t.app.services.leaderboards.submit(target, 'score', t.userId, 10.5)).stat_value).toBe(10.5);
    });

    it('round-trips the tournament fields (§18); an older file imports boards without any; joins are not carried', async () => {
      const { leaderboards, transfer, accounts } = t.app.services;
      const origin = await emptyProject('tournament-origin');
      const settings = {
        joinRequired: true,
        maxParticipants: 8,
        maxSubmissions: 3,
        startsAt: Date.parse('2026-11-20T08:00:00.000Z'),
        endsAt: Date.parse('2099-01-01T00:00:00.000Z'),
      };
      await leaderboards.create(origin, definition('cup', { ...settings, reset: 'weekly' }));
      const player = await accounts.createUser(origin, { username: 'entrant', password: 'password-123' });
      expect(await leaderboards.join(origin, player.id, 'cup')).toEqual({ joined: true, participants: 1 });
      await leaderboards.submit(origin, 'cup', player.id, 7);
      const file = await transfer.exportProject(origin);
      expect(file.leaderboards[0]).toMatchObject({
        join_required: true,
        max_participants: 8,
        max_submissions: 3,
        starts_at: '2026-11-20T08:00:00.000Z',
        ends_at: '2099-01-01T00:00:00.000Z',
      });
      const copy = await emptyProject('tournament-copy');
      await transfer.importProject(copy, JSON.parse(JSON.stringify(file)));
      expect(await transfer.exportProject(copy)).toEqual({ ...file, rules: OPEN_RULESET });
      expect(await leaderboards.admin.get(copy, 'cup')).toMatchObject(settings);
      // Joins and counts are not in the file: an import replacing the board starts its period without them.
      await transfer.importProject(origin, JSON.parse(JSON.stringify(file)));
      await expect(leaderboards.submit(origin, 'cup', player.id, 9)).rejects.toMatchObject({
        code: 'forbidden',
        message: 'Join the tournament first',
      });
      const older = structuredClone(file) as { leaderboards: Record<string, unknown>[] };
      for (const board of older.leaderboards) {
        for (const field of ['join_required', 'max_participants', 'max_submissions', 'starts_at', 'ends_at']) {
          delete board[field];
        }
      }
      await transfer.importProject(copy, older);
      expect((await transfer.exportProject(copy)).leaderboards[0]).toMatchObject({
        join_required: false,
        max_participants: null,
        max_submissions: null,
        starts_at: null,
        ends_at: null,
      });
      const bad = structuredClone(file);
      Object.assign(bad.leaderboards[0] as object, { ends_at: '2026-11-20T08:00:00.000Z' });
      await expect(transfer.importProject(copy, bad)).rejects.toThrow(
        'Invalid import: leaderboards[0].ends_at: must be after starts_at',
      );
    });

    it('answers 404 for a project that does not exist', async () => {
      await expect(t.app.services.transfer.exportProject(999_999)).rejects.toThrow('Project not found');
    });
  });
}
