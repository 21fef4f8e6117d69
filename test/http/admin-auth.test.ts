/** Admin login, admin tokens and their separation from client tokens (§6), on every engine. */
import { decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_PERMISSIONS } from '../../src/core/admin/admin-permissions.js';
import { ADMIN_PASSWORD, adminFixture, createAdmin } from '../support/admin.js';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

const secret = new TextEncoder().encode(TEST_JWT_SECRET);
const INVALID_TOKEN = { detail: 'Invalid or expired token' };

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`admin auth (§6) on ${engine.name}`, () => {
    let t: TestApp;
    let f: Awaited<ReturnType<typeof adminFixture>>;
    beforeAll(async () => {
      t = await startTestApp(engine, { CDS_ADMIN_TOKEN_TTL: '900' });
      f = await adminFixture(t);
    });
    afterAll(async () => {
      await t?.close();
    });

    const login = (payload: unknown) =>
      t.app.http.inject({ method: 'POST', url: '/admin/auth/login', payload: payload as object });
    const me = (headers: Record<string, string>) => t.app.http.inject({ method: 'GET', url: '/admin/me', headers });

    it('login answers an HS256 JWT with sub = admin id, typ "admin", iat and exp', async () => {
      const res = await login({ email: f.owner.email, password: ADMIN_PASSWORD });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
      expect(body.token_type).toBe('bearer');
      expect(body.expires_in).toBe(900);
      expect(decodeProtectedHeader(body.access_token).alg).toBe('HS256');
      const { payload } = await jwtVerify(body.access_token, secret, { algorithms: ['HS256'] });
      expect(payload.sub).toBe(String(f.owner.id));
      expect(payload.typ).toBe('admin');
      expect(typeof payload.iat).toBe('number');
      expect((payload.exp as number) - (payload.iat as number)).toBe(900);
    });

    it('login ignores the case and surrounding spaces of the email', async () => {
      const res = await login({ email: `  ${f.editor.email.toUpperCase()} `, password: ADMIN_PASSWORD });
      expect(res.statusCode).toBe(200);
      expect(decodeJwt(res.json().access_token).sub).toBe(String(f.editor.id));
    });

    it('a wrong email and a wrong password answer the same 401', async () => {
      const wrongPassword = await login({ email: f.owner.email, password: 'not-the-password' });
      const unknownEmail = await login({ email: 'nobody@example.com', password: ADMIN_PASSWORD });
      expect(wrongPassword.statusCode).toBe(401);
      expect(unknownEmail.statusCode).toBe(401);
      expect(wrongPassword.json()).toEqual({ detail: 'Invalid email or password' });
      expect(unknownEmail.json()).toEqual(wrongPassword.json());
    });

    it('a wrong email costs the same scrypt work as a wrong password', async () => {
      const time = async (payload: object) => {
        const runs: number[] = [];
        for (let i = 0; i < 3; i++) {
          const started = performance.now();
          await login(payload);
          runs.push(performance.now() - started);
        }
        return runs.sort((a, b) => a - b)[1] as number;
      };
      const unknown = await time({ email: 'nobody@example.com', password: 'whatever-1' });
      const wrong = await time({ email: f.owner.email, password: 'whatever-1' });
      // Both verify one scrypt hash of the default cost (tens of ms); a skipped hash would be ~100x faster.
      expect(unknown).toBeGreaterThan(wrong / 3);
      expect(wrong).toBeGreaterThan(unknown / 3);
    });

    it('login validates its body (422)', async () => {
      const res = await login({ email: 'a@b.c' });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0]).toMatchObject({ loc: ['body', 'password'], type: 'missing' });
    });

    it('GET /admin/me shows the admin and the permissions of each role (§6 table)', async () => {
      for (const admin of [f.owner, f.editor, f.viewer]) {
        const res = await me(admin.headers);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({
          id: admin.id,
          org_id: f.orgId,
          email: admin.email,
          role: admin.role,
          permissions: [...ROLE_PERMISSIONS[admin.role]].sort(),
        });
      }
      expect((await me(f.editor.headers)).json().permissions).toEqual([
        'document.manage',
        'document.view',
        'leaderboard.manage',
        'rules.manage',
        'user.manage',
      ]);
      expect((await me(f.viewer.headers)).json().permissions).toEqual(['document.view']);
    });

    it('a missing, malformed, badly signed or expired admin token answers 401', async () => {
      const now = Math.floor(Date.now() / 1000);
      const sign = (claims: Record<string, unknown>, key = secret, iat = now, exp = now + 600) =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject(String(f.owner.id))
          .setIssuedAt(iat)
          .setExpirationTime(exp)
          .sign(key);
      const expired = await sign({ typ: 'admin' }, secret, now - 7200, now - 3600);
      const badKey = await sign({ typ: 'admin' }, new TextEncoder().encode('another-secret-that-is-long-enough-000'));
      const valid = await sign({ typ: 'admin' });
      expect((await me({ authorization: `Bearer ${valid}` })).statusCode).toBe(200);
      const attempts: Record<string, string>[] = [
        {},
        { authorization: 'Bearer' },
        { authorization: 'Bearer not-a-jwt' },
        { authorization: `Basic ${valid}` },
        { authorization: `Bearer ${expired}` },
        { authorization: `Bearer ${badKey}` },
      ];
      for (const headers of attempts) {
        const res = await me(headers);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual(INVALID_TOKEN);
      }
    });

    it('a token naming an admin that does not exist answers 401', async () => {
      const now = Math.floor(Date.now() / 1000);
      const ghost = await new SignJWT({ typ: 'admin' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('999999')
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(secret);
      const res = await me({ authorization: `Bearer ${ghost}` });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(INVALID_TOKEN);
    });

    it('a client (player) token on an admin route answers 401', async () => {
      const res = await me({ authorization: `Bearer ${t.token}` });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(INVALID_TOKEN);
      const store = await t.app.http.inject({
        method: 'GET',
        url: `/document-store/${f.orgId}/${f.projectId}/collections`,
        headers: t.headers,
      });
      expect(store.statusCode).toBe(401);
      expect(store.json()).toEqual(INVALID_TOKEN);
    });

    it('an admin token on a client route answers 401, even with valid client credentials', async () => {
      const headers = { ...t.headers, authorization: `Bearer ${f.owner.token}` };
      for (const url of ['/documents/docs/a/b', '/realtime/db/a', '/auth/me']) {
        const res = await t.app.http.inject({ method: 'GET', url, headers });
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual(INVALID_TOKEN);
      }
    });

    it('the client AuthService refuses typ "admin" even when sub and pid would fit', async () => {
      const now = Math.floor(Date.now() / 1000);
      const forged = await new SignJWT({ typ: 'admin', pid: t.project.projectId })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(t.userId))
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(secret);
      await expect(t.app.services.auth.verifyAccessToken(forged, t.project.projectId)).rejects.toMatchObject({
        code: 'invalid_token',
      });
      await expect(t.app.services.auth.verifyAccessToken(f.owner.token, t.project.projectId)).rejects.toMatchObject({
        code: 'invalid_token',
      });
      // The same claims with typ "access" are a valid client token: only typ tells them apart.
      const access = await new SignJWT({ typ: 'access', pid: t.project.projectId })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(t.userId))
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(secret);
      await expect(t.app.services.auth.verifyAccessToken(access, t.project.projectId)).resolves.toBe(t.userId);
    });

    it('the admin service refuses client tokens', async () => {
      await expect(t.app.services.admins.authenticate(t.token)).rejects.toMatchObject({ code: 'invalid_token' });
    });

    it('creating an admin: unknown organisation 404, taken email 409 (whatever its case), bad input 422', async () => {
      const admins = t.app.services.admins;
      await expect(
        admins.createAdmin(999_999, { email: 'x@y.z', password: ADMIN_PASSWORD, role: 'owner' }),
      ).rejects.toMatchObject({
        code: 'not_found',
        message: 'Organisation not found',
      });
      await expect(
        admins.createAdmin(f.orgId, { email: f.viewer.email.toUpperCase(), password: ADMIN_PASSWORD, role: 'viewer' }),
      ).rejects.toMatchObject({ code: 'conflict', message: 'Email already registered' });
      await expect(
        admins.createAdmin(f.orgId, { email: 'no-at-sign', password: 'short', role: 'boss' }),
      ).rejects.toMatchObject({
        code: 'validation',
        issues: [
          expect.objectContaining({ loc: ['body', 'email'] }),
          expect.objectContaining({ loc: ['body', 'password'] }),
          expect.objectContaining({ loc: ['body', 'role'] }),
        ],
      });
    });

    it('the first start’s owner (createFirstOwner) signs in with the password it returns once', async () => {
      const first = await t.app.services.admins.createFirstOwner(f.other.orgId);
      expect(first).toMatchObject({ email: 'admin@localhost', org_id: f.other.orgId, role: 'owner' });
      expect(first.password.length).toBeGreaterThanOrEqual(20);
      const res = await login({ email: first.email, password: first.password });
      expect(res.statusCode).toBe(200);
      expect(decodeJwt(res.json().access_token).sub).toBe(String(first.id));
    });

    it('an admin belongs to one organisation: a second organisation’s owner sees only its own', async () => {
      const res = await me(f.stranger.headers);
      expect(res.json()).toMatchObject({ org_id: f.other.orgId, role: 'owner' });
      const extra = await createAdmin(t, f.other.orgId, 'viewer');
      expect((await me(extra.headers)).json().org_id).toBe(f.other.orgId);
    });
  });
}
