/**
 * §1 over HTTP on every engine: sign-up, login, guest, refresh, /auth/me and the check order. The
 * login timing comparison is auth-timing.test.ts's, which runs serial.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader, jwtVerify, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { ProjectCredentials } from '../../src/core/auth/account-service.js';
import { AuthService } from '../../src/core/auth/auth-service.js';
import { PLAYER_PERMISSIONS } from '../../src/core/auth/player-role.js';
import type { Storage } from '../../src/core/ports.js';
import { engines } from '../support/engines.js';

const JWT_SECRET = 'x'.repeat(40);
const SECRET_KEY = new TextEncoder().encode(JWT_SECRET);
const PASSWORD = 'correct horse battery';
const DOC_URL = '/documents/docs/a/b';
const INVALID_CLIENT = { detail: 'Invalid client credentials' };
const INVALID_TOKEN = { detail: 'Invalid or expired token' };
const AUTH_RESPONSE_KEYS = ['access_token', 'expires_in', 'refresh_token', 'token_type', 'user'];

interface AuthBody {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
  user: { id: number; username: string; nickname: string; avatar_url: string | null };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`auth routes (§1) on ${engine.name}`, () => {
    const logLines: string[] = [];
    // Every secret the tests see, to check that none reaches the logs.
    const secrets = new Set<string>([PASSWORD]);
    let dataDir: string;
    let storage: Storage;
    let app: App;
    let project: ProjectCredentials;
    let other: ProjectCredentials;

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'cds-auth-'));
      storage = await engine.create();
      const config = loadConfig({ CDS_JWT_SECRET: JWT_SECRET, CDS_LOG_LEVEL: 'silent', CDS_DATA_DIR: dataDir });
      const stream = { write: (line: string) => void logLines.push(line) };
      // The production redaction settings, at the most verbose level, into a buffer.
      const logger = { level: 'trace', stream };
      app = await buildApp(config, { storage, logger });
      project = await app.services.accounts.createProject('acme', 'game');
      other = await app.services.accounts.createProject('acme', 'other');
      secrets.add(project.client_secret).add(other.client_secret);
    });
    afterAll(async () => {
      await app?.http.close();
      if (storage) await engine.destroy(storage);
      rmSync(dataDir, { recursive: true, force: true });
    });

    const clientHeaders = (p: ProjectCredentials = project) => ({
      'x-client-id': p.client_id,
      'x-client-secret': p.client_secret,
    });
    const bearer = (token: string, p: ProjectCredentials = project) => ({
      ...clientHeaders(p),
      authorization: `Bearer ${token}`,
    });
    const post = async (url: string, payload: object, headers: Record<string, string> = clientHeaders()) => {
      const res = await app.http.inject({ method: 'POST', url, payload, headers });
      if (res.statusCode < 300) {
        const body = res.json() as Partial<AuthBody>;
        if (body.access_token) secrets.add(body.access_token);
        if (body.refresh_token) secrets.add(body.refresh_token);
      }
      return res;
    };
    const signup = async (username: string, p: ProjectCredentials = project, extra: object = {}) => {
      const res = await post('/auth/signup', { username, password: PASSWORD, ...extra }, clientHeaders(p));
      expect(res.statusCode).toBe(201);
      return res.json() as AuthBody;
    };
    const getDoc = (headers: Record<string, string>) => app.http.inject({ method: 'GET', url: DOC_URL, headers });
    const signWith = (key: Uint8Array, claims: Record<string, unknown>, exp: number | string = '1h') =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(exp).sign(key);

    describe('POST /auth/signup', () => {
      it('creates a player and answers 201 with an AuthResponse', async () => {
        const body = await signup('alice');
        expect(Object.keys(body).sort()).toEqual(AUTH_RESPONSE_KEYS);
        expect(body).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
        expect(body.user).toEqual({ id: body.user.id, username: 'alice', nickname: 'alice', avatar_url: null });
        expect(Number.isInteger(body.user.id)).toBe(true);
        expect(typeof body.refresh_token).toBe('string');
      });

      it('takes an optional nickname', async () => {
        expect((await signup('nick_user', project, { nickname: 'Nicky' })).user.nickname).toBe('Nicky');
      });

      it('answers 409 for a taken username, whatever its case', async () => {
        for (const username of ['alice', 'ALICE']) {
          const res = await post('/auth/signup', { username, password: PASSWORD });
          expect(res.statusCode).toBe(409);
          expect(res.json()).toEqual({ detail: 'Username already taken' });
        }
      });

      it('lets another project reuse a username', async () => {
        expect((await signup('alice', other)).user.username).toBe('alice');
      });

      it('accepts usernames of 3 to 64 letters, digits, _ . -', async () => {
        for (const username of ['abc', 'a'.repeat(64), 'A.b_c-1']) await signup(username);
      });

      it.each([
        ['too short', 'ab'],
        ['too long', 'a'.repeat(65)],
        ['a space', 'bad name'],
        ['a slash', 'a/b'],
        ['a non-ASCII letter', 'émile'],
        ['empty', ''],
      ])('answers 422 for a username that is %s', async (_, username) => {
        const res = await post('/auth/signup', { username, password: PASSWORD });
        expect(res.statusCode).toBe(422);
        expect(res.json().detail).toEqual([expect.objectContaining({ loc: ['body', 'username'] })]);
      });

      it('answers 422 for a password under 8 characters, or missing fields', async () => {
        const short = await post('/auth/signup', { username: 'shorty', password: '1234567' });
        expect(short.statusCode).toBe(422);
        expect(short.json().detail).toEqual([expect.objectContaining({ loc: ['body', 'password'] })]);
        expect((await post('/auth/signup', { username: 'eight', password: '12345678' })).statusCode).toBe(201);
        const missing = await post('/auth/signup', {});
        expect(missing.statusCode).toBe(422);
        const locs = (missing.json().detail as { loc: string[] }[]).map((issue) => issue.loc.join('.'));
        expect(locs.sort()).toEqual(['body.password', 'body.username']);
        expect((await post('/auth/signup', { username: 'typed', password: 12345678 })).statusCode).toBe(422);
      });

      it('needs valid client credentials', async () => {
        const none = await post('/auth/signup', { username: 'nobody', password: PASSWORD }, {});
        expect(none.statusCode).toBe(401);
        expect(none.json()).toEqual(INVALID_CLIENT);
        const wrong = await post(
          '/auth/signup',
          { username: 'nobody', password: PASSWORD },
          { 'x-client-id': project.client_id, 'x-client-secret': other.client_secret },
        );
        expect(wrong.statusCode).toBe(401);
        expect(wrong.json()).toEqual(INVALID_CLIENT);
      });
    });

    describe('POST /auth/login', () => {
      it('signs a user in with the right password', async () => {
        const created = await signup('bob');
        const res = await post('/auth/login', { username: 'bob', password: PASSWORD });
        expect(res.statusCode).toBe(200);
        const body = res.json() as AuthBody;
        expect(Object.keys(body).sort()).toEqual(AUTH_RESPONSE_KEYS);
        expect(body.user).toEqual(created.user);
        expect(body.refresh_token).not.toBe(created.refresh_token);
      });

      it('answers 401 with one message for an unknown user and a wrong password', async () => {
        const unknown = await post('/auth/login', { username: 'nobody_here', password: PASSWORD });
        const wrong = await post('/auth/login', { username: 'bob', password: 'wrong password' });
        const otherProject = await post('/auth/login', { username: 'bob', password: PASSWORD }, clientHeaders(other));
        for (const res of [unknown, wrong, otherProject]) {
          expect(res.statusCode).toBe(401);
          expect(res.json()).toEqual({ detail: 'Invalid username or password' });
        }
      });
      // An unknown user's login costs the same scrypt work as a wrong password's: auth-timing.test.ts (serial).
    });

    describe('POST /auth/guest', () => {
      it('binds one guest user to a device id', async () => {
        const first = await post('/auth/guest', { device_id: 'device-1' });
        const second = await post('/auth/guest', { device_id: 'device-1' });
        expect(first.statusCode).toBe(200);
        expect(Object.keys(first.json()).sort()).toEqual(AUTH_RESPONSE_KEYS);
        const user = (first.json() as AuthBody).user;
        expect(user.username).toMatch(/^guest_[0-9a-f]+$/);
        expect((second.json() as AuthBody).user).toEqual(user);

        const another = (await post('/auth/guest', { device_id: 'device-2' })).json() as AuthBody;
        expect(another.user.id).not.toBe(user.id);
        const elsewhere = (
          await post('/auth/guest', { device_id: 'device-1' }, clientHeaders(other))
        ).json() as AuthBody;
        expect(elsewhere.user.username).not.toBe(user.username);
      });

      it('gives guests the player role', async () => {
        const guest = (await post('/auth/guest', { device_id: 'device-3' })).json() as AuthBody;
        const res = await getDoc(bearer(guest.access_token));
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ detail: 'Document not found' });
      });

      it('answers 422 without a device id, and a guest cannot log in with a password', async () => {
        expect((await post('/auth/guest', {})).statusCode).toBe(422);
        const guest = (await post('/auth/guest', { device_id: 'device-4' })).json() as AuthBody;
        const login = await post('/auth/login', { username: guest.user.username, password: '' });
        expect(login.statusCode).toBe(401);
      });
    });

    describe('POST /auth/refresh', () => {
      it('rotates: a refresh token works once, the new one works next', async () => {
        const first = await signup('carol');
        const refreshed = await post('/auth/refresh', { refresh_token: first.refresh_token });
        expect(refreshed.statusCode).toBe(200);
        const body = refreshed.json() as AuthBody;
        expect(Object.keys(body).sort()).toEqual(AUTH_RESPONSE_KEYS);
        expect(body.user).toEqual(first.user);
        expect(body.refresh_token).not.toBe(first.refresh_token);

        const reused = await post('/auth/refresh', { refresh_token: first.refresh_token });
        expect(reused.statusCode).toBe(401);
        expect(typeof reused.json().detail).toBe('string');
        expect((await post('/auth/refresh', { refresh_token: body.refresh_token })).statusCode).toBe(200);
      });

      it('answers 401 for a malformed or unknown token, and 422 without one', async () => {
        for (const refresh_token of ['garbage', '', 'a'.repeat(43)]) {
          expect((await post('/auth/refresh', { refresh_token })).statusCode).toBe(401);
        }
        expect((await post('/auth/refresh', {})).statusCode).toBe(422);
      });

      it("refuses another project's refresh token without using it up", async () => {
        const mine = await signup('dave');
        const elsewhere = await post('/auth/refresh', { refresh_token: mine.refresh_token }, clientHeaders(other));
        expect(elsewhere.statusCode).toBe(401);
        expect((await post('/auth/refresh', { refresh_token: mine.refresh_token })).statusCode).toBe(200);
      });
    });

    describe('/auth/me', () => {
      it('returns the profile with roles and permissions', async () => {
        const erin = await signup('erin');
        const res = await app.http.inject({ method: 'GET', url: '/auth/me', headers: bearer(erin.access_token) });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({
          id: erin.user.id,
          username: 'erin',
          nickname: 'erin',
          avatar_url: null,
          roles: ['player'],
          permissions: [...PLAYER_PERMISSIONS].sort(),
        });
      });

      it('needs client credentials and a token', async () => {
        const erin = (await post('/auth/login', { username: 'erin', password: PASSWORD })).json() as AuthBody;
        const noClient = await app.http.inject({
          method: 'GET',
          url: '/auth/me',
          headers: { authorization: `Bearer ${erin.access_token}` },
        });
        expect(noClient.statusCode).toBe(401);
        expect(noClient.json()).toEqual(INVALID_CLIENT);
        const noToken = await app.http.inject({ method: 'GET', url: '/auth/me', headers: clientHeaders() });
        expect(noToken.statusCode).toBe(401);
        expect(noToken.json()).toEqual(INVALID_TOKEN);
      });

      it('PATCH updates nickname and avatar_url', async () => {
        const frank = await signup('frank');
        const patch = (payload: object) =>
          app.http.inject({ method: 'PATCH', url: '/auth/me', headers: bearer(frank.access_token), payload });
        const updated = await patch({ nickname: 'Franky', avatar_url: 'https://cdn.example/f.png' });
        expect(updated.statusCode).toBe(200);
        expect(updated.json()).toMatchObject({ nickname: 'Franky', avatar_url: 'https://cdn.example/f.png' });
        expect((await patch({})).json()).toMatchObject({ nickname: 'Franky', avatar_url: 'https://cdn.example/f.png' });
        expect((await patch({ avatar_url: null })).json()).toMatchObject({ nickname: 'Franky', avatar_url: null });
        const me = await app.http.inject({ method: 'GET', url: '/auth/me', headers: bearer(frank.access_token) });
        expect(me.json()).toMatchObject({ username: 'frank', nickname: 'Franky', avatar_url: null });
        expect((await patch({ nickname: '' })).statusCode).toBe(422);
        expect((await patch({ nickname: 5 })).statusCode).toBe(422);
        const login = (await post('/auth/login', { username: 'frank', password: PASSWORD })).json() as AuthBody;
        expect(login.user.nickname).toBe('Franky');
      });
    });

    describe('the order of checks on a data route', () => {
      let token: string;
      beforeAll(async () => {
        token = (await signup('grace')).access_token;
      });

      it('passes with good client credentials and token (the route then answers)', async () => {
        const res = await getDoc(bearer(token));
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ detail: 'Document not found' });
      });

      it('checks client credentials first, even with a good token', async () => {
        const auth = { authorization: `Bearer ${token}` };
        // Accepted once, the secret is remembered; another of the same length must still fail.
        expect((await getDoc(bearer(token))).statusCode).toBe(404);
        expect(other.client_secret).toHaveLength(project.client_secret.length);
        for (const headers of [
          auth,
          { ...auth, 'x-client-id': project.client_id },
          { ...auth, 'x-client-id': project.client_id, 'x-client-secret': 'wrong' },
          { ...auth, 'x-client-id': project.client_id, 'x-client-secret': other.client_secret },
          { ...auth, 'x-client-id': 'cid_unknown', 'x-client-secret': project.client_secret },
        ]) {
          const res = await getDoc(headers);
          expect(res.statusCode).toBe(401);
          expect(res.json()).toEqual(INVALID_CLIENT);
        }
      });

      it('then the token: missing, malformed, bad signature, expired, wrong type or project', async () => {
        const now = Math.floor(Date.now() / 1000);
        const sub = '1';
        const otherToken = (await signup('henry', other)).access_token;
        const tokens = [
          'garbage',
          'a.b.c',
          `${token}x`,
          await signWith(new TextEncoder().encode('y'.repeat(40)), { sub, pid: project.project_id, typ: 'access' }),
          await signWith(SECRET_KEY, { sub, pid: project.project_id, typ: 'access' }, now - 10),
          await signWith(SECRET_KEY, { sub, pid: project.project_id, typ: 'admin' }),
          await signWith(SECRET_KEY, { sub, typ: 'access' }),
          await signWith(SECRET_KEY, { sub: 'abc', pid: project.project_id, typ: 'access' }),
          new UnsecuredJWT({ sub, pid: project.project_id, typ: 'access' }).setExpirationTime('1h').encode(),
          otherToken,
        ];
        const missing = await getDoc(clientHeaders());
        expect(missing.statusCode).toBe(401);
        expect(missing.json()).toEqual(INVALID_TOKEN);
        const basic = await getDoc({ ...clientHeaders(), authorization: `Basic ${token}` });
        expect(basic.json()).toEqual(INVALID_TOKEN);
        for (const bad of tokens) {
          const res = await getDoc(bearer(bad));
          expect(res.statusCode).toBe(401);
          expect(res.json()).toEqual(INVALID_TOKEN);
        }
        // The other project's token is fine with its own client.
        expect((await getDoc(bearer(otherToken, other))).statusCode).toBe(404);
      });

      it('then the permission, from a role created through AccountService', async () => {
        const { accounts } = app.services;
        await accounts.createRole(project.project_id, 'spectator', ['client.leaderboard']);
        const user = await accounts.createUser(project.project_id, {
          username: 'ivan',
          password: PASSWORD,
          roles: ['spectator'],
        });
        const login = (await post('/auth/login', { username: user.username, password: PASSWORD })).json() as AuthBody;
        const res = await getDoc(bearer(login.access_token));
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ detail: "Permission 'client.documents' required" });
        // A bad client still comes first for a user without the permission.
        const badClient = await getDoc({ ...bearer(login.access_token), 'x-client-secret': 'wrong' });
        expect(badClient.json()).toEqual(INVALID_CLIENT);
      });
    });

    describe('permission changes', () => {
      it('take effect at once when made through AccountService', async () => {
        const { accounts } = app.services;
        await accounts.createRole(project.project_id, 'viewer', []);
        await accounts.createUser(project.project_id, { username: 'judy', password: PASSWORD, roles: ['viewer'] });
        const { access_token } = (await post('/auth/login', { username: 'judy', password: PASSWORD })).json();
        expect((await getDoc(bearer(access_token))).statusCode).toBe(403);
        await accounts.createRole(project.project_id, 'viewer', ['client.documents']);
        expect((await getDoc(bearer(access_token))).statusCode).toBe(404);
      });

      it('take effect within 10 s when made by another instance (straight in the database)', async () => {
        const kim = await signup('kim');
        expect((await getDoc(bearer(kim.access_token))).statusCode).toBe(404);
        await storage.accounts.upsertRole(project.project_id, { name: 'muted', permissions: [] });
        await storage.accounts.setUserRoles(project.project_id, kim.user.id, ['muted']);
        const start = Date.now();
        let status = 0;
        while (Date.now() - start < 10_000) {
          status = (await getDoc(bearer(kim.access_token))).statusCode;
          if (status === 403) break;
          await sleep(200);
        }
        expect(status).toBe(403);
        expect(Date.now() - start).toBeLessThan(10_000);
      });

      it('are seen after permissionCacheMs by an AuthService configured with it', async () => {
        const auth = new AuthService({ accounts: storage.accounts, jwtSecret: SECRET_KEY, permissionCacheMs: 100 });
        const lee = await signup('lee');
        await auth.requirePermission(project.project_id, lee.user.id, 'client.documents');
        await storage.accounts.setUserRoles(project.project_id, lee.user.id, ['muted']);
        await sleep(150);
        await expect(auth.requirePermission(project.project_id, lee.user.id, 'client.documents')).rejects.toMatchObject(
          {
            code: 'forbidden',
          },
        );
      });
    });

    describe('access tokens', () => {
      it('are HS256 JWTs a third party verifies with the secret: sub, pid, typ, iat, exp', async () => {
        const before = Math.floor(Date.now() / 1000);
        const mia = await signup('mia');
        expect(decodeProtectedHeader(mia.access_token).alg).toBe('HS256');
        const { payload } = await jwtVerify(mia.access_token, SECRET_KEY, { algorithms: ['HS256'] });
        expect(payload.sub).toBe(String(mia.user.id));
        expect(payload.pid).toBe(project.project_id);
        expect(payload.typ).toBe('access');
        expect(payload.iat).toBeGreaterThanOrEqual(before);
        expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
        await expect(jwtVerify(mia.access_token, new TextEncoder().encode('y'.repeat(40)))).rejects.toThrow();
      });
    });

    describe('logs', () => {
      it('never contain passwords, client secrets or tokens', () => {
        const text = logLines.join('');
        expect(logLines.length).toBeGreaterThan(50);
        expect(text).toContain('/auth/login');
        for (const secret of secrets) expect(text).not.toContain(secret);
      });
    });
  });
}
