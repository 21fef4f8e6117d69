/**
 * The behaviour every AccountStore must have, run against each engine by
 * test/storage/account-store.test.ts. Real databases, no mocks.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccountStore, NewUser, Role } from '../../src/core/auth/account-store.js';
import type { Storage } from '../../src/core/ports.js';
import type { EngineFixture } from '../support/engines.js';
import { created } from '../support/outcomes.js';

const PLAYER: Role = { name: 'player', permissions: ['client.documents', 'client.realtime'] };
const HOUR = 3600_000;

function newUser(username: string, extra: Partial<NewUser> = {}): NewUser {
  return { username, passwordHash: `hash-of-${username}`, nickname: username, roles: ['player'], ...extra };
}

/** Registers the AccountStore suite for one engine. */
export function accountStoreCases(engine: EngineFixture): void {
  describe.skipIf(engine.unavailable)(`AccountStore on ${engine.name}`, () => {
    let storage: Storage;
    let store: AccountStore;
    let projectId: number;

    beforeEach(async () => {
      storage = await engine.create();
      store = storage.accounts;
      const org = await store.ensureOrganisation('acme');
      projectId = (await store.createProject(org.id, 'game', PLAYER)).id;
    });
    afterEach(async () => {
      await engine.destroy(storage);
    });
    const createUser = async (project: number, user: NewUser) => created(await store.createUser(project, user));
    const ensureGuest = async (project: number, user: NewUser & { deviceId: string }) =>
      created(await store.ensureGuest(project, user));

    describe('organisations and projects', () => {
      it('is empty before the first organisation only', async () => {
        const fresh = await engine.create();
        try {
          expect(await fresh.accounts.isEmpty()).toBe(true);
          await fresh.accounts.ensureOrganisation('first');
          expect(await fresh.accounts.isEmpty()).toBe(false);
        } finally {
          await engine.destroy(fresh);
        }
      });

      it('ensures an organisation once and reports whether it created it', async () => {
        const first = await store.ensureOrganisation('beta');
        const again = await store.ensureOrganisation('beta');
        expect(first).toMatchObject({ name: 'beta', created: true });
        expect(again).toEqual({ id: first.id, name: 'beta', created: false });
        const racing = await Promise.all([1, 2, 3, 4].map(() => store.ensureOrganisation('gamma')));
        expect(new Set(racing.map((org) => org.id)).size).toBe(1);
        expect(racing.filter((org) => org.created)).toHaveLength(1);
      });

      it('creates a project with its default role, and finds it by id', async () => {
        const org = await store.ensureOrganisation('beta');
        const project = await store.createProject(org.id, 'second', PLAYER);
        expect(project).toEqual({ id: project.id, orgId: org.id, name: 'second' });
        expect(project.id).not.toBe(projectId);
        expect(await store.getProject(project.id)).toEqual(project);
        expect(await store.getProject(999_999)).toBeNull();
        expect(await store.listRoles(project.id)).toEqual([PLAYER]);
      });
    });

    describe('clients', () => {
      it('stores a client by id and finds its project and secret hash', async () => {
        await store.createClient(projectId, 'cid_1', 'a'.repeat(64));
        expect(await store.findClient('cid_1')).toEqual({ projectId, secretHash: 'a'.repeat(64) });
        expect(await store.findClient('cid_unknown')).toBeNull();
      });
    });

    describe('users', () => {
      it('numbers users per project from 1, densely', async () => {
        const org = await store.ensureOrganisation('other');
        const other = (await store.createProject(org.id, 'other', PLAYER)).id;
        expect((await createUser(projectId, newUser('alice'))).id).toBe(1);
        expect((await createUser(projectId, newUser('bob'))).id).toBe(2);
        expect((await createUser(other, newUser('alice'))).id).toBe(1);
        expect(await store.createUser(projectId, newUser('ALICE'))).toBe('taken');
        // The failed insert did not use up an id.
        expect((await createUser(projectId, newUser('carol'))).id).toBe(3);
      });

      it('returns the created user without secrets', async () => {
        const user = await createUser(projectId, newUser('dora', { nickname: 'Dora', avatarUrl: 'https://a/b.png' }));
        expect(user).toEqual({
          id: 1,
          projectId,
          username: 'dora',
          nickname: 'Dora',
          avatarUrl: 'https://a/b.png',
          roles: ['player'],
          disabled: false,
          tokenEpoch: 0,
        });
      });

      it('gives concurrent sign-ups distinct consecutive ids', async () => {
        const users = await Promise.all(
          Array.from({ length: 20 }, (_, i) => createUser(projectId, newUser(`user${i}`))),
        );
        expect(users.map((u) => u.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      });

      it('refuses a user in a project that does not exist', async () => {
        expect(await store.createUser(999_999, newUser('ghost'))).toBe('missing');
      });

      it('finds users by username case-insensitively (with the hash) and by id', async () => {
        const created = await createUser(projectId, newUser('Erin'));
        expect(await store.findUserByUsername(projectId, 'erin')).toEqual({ ...created, passwordHash: 'hash-of-Erin' });
        expect(await store.findUserByUsername(projectId, 'nobody')).toBeNull();
        expect(await store.findUserById(projectId, created.id)).toEqual(created);
        expect(await store.findUserById(projectId, 42)).toBeNull();
      });

      it('keeps users of one project invisible to another', async () => {
        const org = await store.ensureOrganisation('other');
        const other = (await store.createProject(org.id, 'other', PLAYER)).id;
        const user = await createUser(projectId, newUser('frank'));
        expect(await store.findUserByUsername(other, 'frank')).toBeNull();
        expect(await store.findUserById(other, user.id)).toBeNull();
        expect(await store.permissionsOf(other, user.id)).toBeNull();
      });

      it('updates only the profile fields given', async () => {
        const user = await createUser(projectId, newUser('gina', { avatarUrl: 'https://x/1.png' }));
        expect(await store.updateProfile(projectId, user.id, { nickname: 'G' })).toMatchObject({
          nickname: 'G',
          avatarUrl: 'https://x/1.png',
        });
        expect(await store.updateProfile(projectId, user.id, { avatarUrl: null })).toMatchObject({
          nickname: 'G',
          avatarUrl: null,
        });
        expect(await store.updateProfile(projectId, user.id, {})).toMatchObject({ nickname: 'G', avatarUrl: null });
        expect(await store.updateProfile(projectId, 999, { nickname: 'x' })).toBeNull();
      });
    });

    describe('guests', () => {
      const guest = (username: string, deviceId: string) => ({
        ...newUser(username, { passwordHash: null }),
        deviceId,
      });

      it('binds one user to a device: created on the first call, the same later', async () => {
        expect(await store.findUserByDevice(projectId, 'device-1')).toBeNull();
        const first = await ensureGuest(projectId, guest('guest_a', 'device-1'));
        expect(await store.findUserByDevice(projectId, 'device-1')).toEqual(first);
        const again = await ensureGuest(projectId, guest('guest_b', 'device-1'));
        expect(again).toEqual(first);
        expect(first.username).toBe('guest_a');
        expect((await store.findUserByUsername(projectId, 'guest_a'))?.passwordHash).toBeNull();
      });

      it('creates one user when first calls for a device race', async () => {
        const users = await Promise.all(
          Array.from({ length: 10 }, (_, i) => ensureGuest(projectId, guest(`guest_r${i}`, 'device-race'))),
        );
        const ids = new Set(users.map((u) => u.id));
        expect(ids.size).toBe(1);
        const next = await createUser(projectId, newUser('after'));
        expect(next.id).toBe(Math.max(...ids) + 1);
      });

      it('keeps devices per project', async () => {
        const org = await store.ensureOrganisation('other');
        const other = (await store.createProject(org.id, 'other', PLAYER)).id;
        const a = await ensureGuest(projectId, guest('guest_x', 'device-2'));
        const b = await ensureGuest(other, guest('guest_y', 'device-2'));
        expect(b.projectId).toBe(other);
        expect(b.username).toBe('guest_y');
        expect(a.projectId).toBe(projectId);
      });

      it('reports a taken username as taken', async () => {
        await createUser(projectId, newUser('guest_taken'));
        expect(await store.ensureGuest(projectId, guest('guest_taken', 'device-3'))).toBe('taken');
      });
    });

    describe('roles and permissions', () => {
      it('unites the permissions of the user’s roles, ignoring unknown roles', async () => {
        await store.upsertRole(projectId, { name: 'mod', permissions: ['client.realtime', 'mod.kick'] });
        const user = await createUser(projectId, newUser('hank', { roles: ['player', 'mod', 'nope'] }));
        expect((await store.permissionsOf(projectId, user.id))?.sort()).toEqual([
          'client.documents',
          'client.realtime',
          'mod.kick',
        ]);
        expect(await store.permissionsOf(projectId, 999)).toBeNull();
      });

      it('replaces a role on upsert and lists roles by name', async () => {
        await store.upsertRole(projectId, { name: 'mod', permissions: ['a'] });
        await store.upsertRole(projectId, { name: 'mod', permissions: ['b', 'c'] });
        expect(await store.listRoles(projectId)).toEqual([{ name: 'mod', permissions: ['b', 'c'] }, PLAYER]);
      });

      it('sets exactly the roles given', async () => {
        await store.upsertRole(projectId, { name: 'empty', permissions: [] });
        const user = await createUser(projectId, newUser('ivy'));
        await store.setUserRoles(projectId, user.id, ['empty']);
        expect((await store.findUserById(projectId, user.id))?.roles).toEqual(['empty']);
        expect(await store.permissionsOf(projectId, user.id)).toEqual([]);
      });
    });

    describe('refresh tokens', () => {
      let userId: number;
      beforeEach(async () => {
        userId = (await createUser(projectId, newUser('jack'))).id;
      });

      it('consumes a token once', async () => {
        const now = new Date();
        await store.saveRefreshToken('h1', projectId, userId, new Date(now.getTime() + HOUR), 0);
        expect(await store.consumeRefreshToken(projectId, 'h1', now)).toEqual({ userId, tokenEpoch: 0 });
        expect(await store.consumeRefreshToken(projectId, 'h1', now)).toBeNull();
        expect(await store.consumeRefreshToken(projectId, 'unknown', now)).toBeNull();
      });

      it('refuses an expired token', async () => {
        const now = new Date();
        await store.saveRefreshToken('h2', projectId, userId, new Date(now.getTime() - 1000), 0);
        expect(await store.consumeRefreshToken(projectId, 'h2', now)).toBeNull();
      });

      it('refuses, without using it up, a token presented for another project', async () => {
        const org = await store.ensureOrganisation('other');
        const other = (await store.createProject(org.id, 'other', PLAYER)).id;
        const now = new Date();
        await store.saveRefreshToken('h3', projectId, userId, new Date(now.getTime() + HOUR), 0);
        expect(await store.consumeRefreshToken(other, 'h3', now)).toBeNull();
        expect(await store.consumeRefreshToken(projectId, 'h3', now)).toEqual({ userId, tokenEpoch: 0 });
      });

      it('lets exactly one of concurrent uses win', async () => {
        const now = new Date();
        await store.saveRefreshToken('h4', projectId, userId, new Date(now.getTime() + HOUR), 0);
        const results = await Promise.all(
          Array.from({ length: 8 }, () => store.consumeRefreshToken(projectId, 'h4', now)),
        );
        expect(results.filter((r) => r?.userId === userId)).toHaveLength(1);
      });
    });

    describe('disabling users', () => {
      it('disables with a new token epoch and no refresh tokens left; enabling keeps the epoch', async () => {
        const user = await createUser(projectId, newUser('kim'));
        const later = new Date(Date.now() + HOUR);
        await store.saveRefreshToken('k1', projectId, user.id, later, 0);
        await store.saveRefreshToken('k2', projectId, user.id, later, 0);
        expect(await store.accessOf(projectId, user.id)).toEqual({
          roles: user.roles,
          permissions: PLAYER.permissions,
          disabled: false,
          tokenEpoch: 0,
        });
        expect(await store.setUserDisabled(projectId, user.id, true)).toMatchObject({ disabled: true, tokenEpoch: 1 });
        expect(await store.accessOf(projectId, user.id)).toMatchObject({ disabled: true, tokenEpoch: 1 });
        expect(await store.consumeRefreshToken(projectId, 'k1', new Date())).toBeNull();
        expect(await store.consumeRefreshToken(projectId, 'k2', new Date())).toBeNull();
        expect(await store.setUserDisabled(projectId, user.id, false)).toMatchObject({
          disabled: false,
          tokenEpoch: 1,
        });
        expect(await store.findUserByUsername(projectId, 'kim')).toMatchObject({ disabled: false, tokenEpoch: 1 });
      });

      it('refuses, also after re-enabling, a refresh token saved under an epoch a disable has passed', async () => {
        const user = await createUser(projectId, newUser('nia'));
        const later = new Date(Date.now() + HOUR);
        // A sign-in read the user before the disable, and saves its token after the disable dropped the others.
        const read = await store.findUserByUsername(projectId, 'nia');
        await store.setUserDisabled(projectId, user.id, true);
        await store.saveRefreshToken('n1', projectId, user.id, later, read?.tokenEpoch ?? -1);
        await store.saveRefreshToken('n2', projectId, user.id, later, read?.tokenEpoch ?? -1);
        expect(await store.consumeRefreshToken(projectId, 'n1', new Date())).toBeNull();
        await store.setUserDisabled(projectId, user.id, false);
        expect(await store.consumeRefreshToken(projectId, 'n2', new Date())).toBeNull();
        // Issued under the current epoch (a sign-in after re-enabling): good.
        await store.saveRefreshToken('n3', projectId, user.id, later, 1);
        expect(await store.consumeRefreshToken(projectId, 'n3', new Date())).toEqual({
          userId: user.id,
          tokenEpoch: 1,
        });
      });

      it('touches only that user of that project; an unknown user is null', async () => {
        const a = await createUser(projectId, newUser('lou'));
        const b = await createUser(projectId, newUser('max'));
        await store.saveRefreshToken('m1', projectId, b.id, new Date(Date.now() + HOUR), 0);
        const org = await store.ensureOrganisation('elsewhere');
        const other = (await store.createProject(org.id, 'other', PLAYER)).id;
        expect(await store.setUserDisabled(other, a.id, true)).toBeNull();
        expect(await store.setUserDisabled(projectId, 999, true)).toBeNull();
        await store.setUserDisabled(projectId, a.id, true);
        expect(await store.findUserById(projectId, b.id)).toMatchObject({ disabled: false, tokenEpoch: 0 });
        expect(await store.consumeRefreshToken(projectId, 'm1', new Date())).toEqual({ userId: b.id, tokenEpoch: 0 });
        expect(await store.accessOf(projectId, 999)).toBeNull();
      });
    });
  });
}
