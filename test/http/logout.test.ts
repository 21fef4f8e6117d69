/** `POST /auth/logout` (§14): one session ends, nothing else does. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

interface Session {
  access_token: string;
  refresh_token: string;
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`POST /auth/logout on ${engine.name}`, () => {
    let t: TestApp;
    let client: Record<string, string>;
    beforeAll(async () => {
      t = await startTestApp(engine);
      client = { 'x-client-id': t.project.clientId, 'x-client-secret': t.project.clientSecret };
    });
    afterAll(async () => {
      await t?.close();
    });

    const post = (url: string, payload: object, headers = client) =>
      t.app.http.inject({ method: 'POST', url, payload, headers });
    const login = async (username: string): Promise<Session> =>
      (await post('/auth/login', { username, password: 'password-1234' })).json();

    it('refuses that refresh token afterwards; other sessions and access tokens keep working', async () => {
      expect((await post('/auth/signup', { username: 'leaver', password: 'password-1234' })).statusCode).toBe(201);
      const phone = await login('leaver');
      const laptop = await login('leaver');
      const res = await post('/auth/logout', { refresh_token: phone.refresh_token });
      expect([res.statusCode, res.json()]).toEqual([200, {}]);
      expect((await post('/auth/refresh', { refresh_token: phone.refresh_token })).statusCode).toBe(401);
      expect((await post('/auth/refresh', { refresh_token: laptop.refresh_token })).statusCode).toBe(200);
      const me = await t.app.http.inject({
        method: 'GET',
        url: '/auth/me',
        headers: { ...client, authorization: `Bearer ${phone.access_token}` },
      });
      expect(me.statusCode).toBe(200);
      // Logging out twice is fine.
      expect((await post('/auth/logout', { refresh_token: phone.refresh_token })).statusCode).toBe(200);
    });

    it('answers 200 and revokes nothing for unknown tokens and tokens of another project', async () => {
      expect((await post('/auth/signup', { username: 'stayer', password: 'password-1234' })).statusCode).toBe(201);
      const session = await login('stayer');
      const other = await t.otherProject();
      const otherClient = { 'x-client-id': other.project.clientId, 'x-client-secret': other.project.clientSecret };
      for (const refresh_token of ['garbage', '', session.refresh_token]) {
        expect((await post('/auth/logout', { refresh_token }, otherClient)).statusCode).toBe(200);
      }
      expect((await post('/auth/logout', { refresh_token: 'x'.repeat(43) })).statusCode).toBe(200);
      expect((await post('/auth/refresh', { refresh_token: session.refresh_token })).statusCode).toBe(200);
    });

    it('answers 422 without refresh_token and 401 without client credentials', async () => {
      const missing = await post('/auth/logout', {});
      expect(missing.statusCode).toBe(422);
      expect(missing.json().detail[0].loc).toEqual(['body', 'refresh_token']);
      expect((await post('/auth/logout', { refresh_token: 'x' }, {})).statusCode).toBe(401);
    });
  });
}
