/**
 * A disable racing a sign-in or a refresh (§1, §13), on every engine: the racing call read the
 * user before the disable and saves its refresh token after the disable committed (and dropped
 * the user's tokens), the store calls interleaved here by holding `saveRefreshToken`. Neither that
 * refresh token nor the access token beside it works, not even after re-enabling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountStore } from '../../src/core/auth/account-store.js';
import { AuthService } from '../../src/core/auth/auth-service.js';
import { hashPassword, type ScryptParams } from '../../src/core/auth/passwords.js';
import type { Storage } from '../../src/core/ports.js';
import { engines } from '../support/engines.js';
import { created } from '../support/outcomes.js';

const SECRET = new TextEncoder().encode('test-secret-that-is-long-enough-0123456789');
const CHEAP: ScryptParams = { N: 1024, r: 8, p: 1 };
const PASSWORD = 'password-123';

/** `accounts` whose `saveRefreshToken` waits, once called, until `release`: what a slow sign-in does. */
function heldSaves(accounts: AccountStore) {
  let arrived = () => {};
  const saving = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const store = new Proxy(accounts, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== 'function') return value;
      if (name !== 'saveRefreshToken') return value.bind(target);
      return async (...args: unknown[]) => {
        arrived();
        await released;
        return value.apply(target, args);
      };
    },
  });
  return { store, saving, release };
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`a disable racing a sign-in or a refresh on ${engine.name}`, () => {
    let storage: Storage;
    let projectId: number;
    /** A service with nothing cached, as another instance would be. */
    const fresh = (accounts: AccountStore = storage.accounts) =>
      new AuthService({ accounts, jwtSecret: SECRET, scrypt: CHEAP, permissionCacheMs: 1 });

    beforeAll(async () => {
      storage = await engine.create();
      const org = await storage.accounts.ensureOrganisation('acme');
      const role = { name: 'player', permissions: ['client.documents'] };
      projectId = (await storage.accounts.createProject(org.id, 'game', role)).id;
    });
    afterAll(async () => {
      if (storage) await engine.destroy(storage);
    });

    const createUser = async (username: string) =>
      created(
        await storage.accounts.createUser(projectId, {
          username,
          passwordHash: await hashPassword(PASSWORD, CHEAP),
          nickname: username,
          roles: ['player'],
        }),
      );
    /** Disables `userId` while `racing` waits to save its refresh token, then lets it finish and re-enables. */
    const disableDuring = async <T>(held: ReturnType<typeof heldSaves>, racing: Promise<T>, userId: number) => {
      await held.saving;
      await storage.accounts.setUserDisabled(projectId, userId, true);
      held.release();
      const result = await racing;
      await storage.accounts.setUserDisabled(projectId, userId, false);
      return result;
    };
    const refused = { code: 'invalid_token' };

    it('refuses the tokens of a login that raced the disable', async () => {
      const user = await createUser('login_racer');
      const held = heldSaves(storage.accounts);
      const login = fresh(held.store).login(projectId, { username: 'login_racer', password: PASSWORD });
      const session = await disableDuring(held, login, user.id);
      await expect(fresh().refresh(projectId, session.refresh_token)).rejects.toMatchObject(refused);
      await expect(fresh().verifyAccessToken(session.access_token, projectId)).rejects.toMatchObject(refused);
      // A login after re-enabling works, and so does its refresh token.
      const again = await fresh().login(projectId, { username: 'login_racer', password: PASSWORD });
      const refreshed = await fresh().refresh(projectId, again.refresh_token);
      expect(await fresh().verifyAccessToken(refreshed.access_token, projectId)).toBe(user.id);
    });

    it('refuses the tokens of a refresh that raced the disable', async () => {
      const user = await createUser('refresh_racer');
      const before = await fresh().login(projectId, { username: 'refresh_racer', password: PASSWORD });
      const held = heldSaves(storage.accounts);
      const refresh = fresh(held.store).refresh(projectId, before.refresh_token);
      const session = await disableDuring(held, refresh, user.id);
      await expect(fresh().refresh(projectId, session.refresh_token)).rejects.toMatchObject(refused);
      await expect(fresh().verifyAccessToken(session.access_token, projectId)).rejects.toMatchObject(refused);
    });
  });
}
