/**
 * A socket's token (§14): replaced by `auth`, refused when it is another user's or invalid, and
 * the socket closed with 4001 once the last accepted token expires — not before its `exp`.
 * Not a storage feature: it runs on SQLite only.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_JWT_SECRET } from '../support/app.js';
import { sqliteEngine } from '../support/engines.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';
import { addPlayer } from '../support/rules.js';

/** An access token of `userId` in `projectId` expiring at `exp` (seconds). */
function tokenOf(projectId: number, userId: number, exp: number, secret = TEST_JWT_SECRET): Promise<string> {
  return new SignJWT({ pid: projectId, typ: 'access', epoch: 0 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(userId))
    .setIssuedAt()
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secret));
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('WebSocket token lifetime (§14)', () => {
  let t: RealtimeTestApp;
  beforeAll(async () => {
    t = await startRealtimeApp(sqliteEngine);
  });
  afterAll(async () => {
    await t?.close();
  });

  const socketWith = async (token: string) => t.socket({ ...t.headers, authorization: `Bearer ${token}` });

  it('closes with 4001 Token expired once the token expires, not before', async () => {
    const exp = nowSeconds() + 2;
    const socket = await socketWith(await tokenOf(t.project.projectId, t.userId, exp));
    expect((await socket.request({ action: 'subscribe', path: 'a', id: 1 })).event).toBe('init');
    const closed = await socket.closed;
    expect(closed).toEqual({ code: 4001, reason: 'Token expired' });
    expect(Date.now()).toBeGreaterThanOrEqual(exp * 1000);
  });

  it('runs on the token an auth message gives it: a later expiry keeps it open', async () => {
    const shortExp = nowSeconds() + 1;
    const socket = await socketWith(await tokenOf(t.project.projectId, t.userId, shortExp));
    const longer = await tokenOf(t.project.projectId, t.userId, nowSeconds() + 3600);
    expect(await socket.request({ action: 'auth', access_token: longer, id: 'a' })).toEqual({
      event: 'ack',
      action: 'auth',
      id: 'a',
    });
    // Past the first token's expiry, the socket still answers.
    while (Date.now() < shortExp * 1000 + 1500) await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await socket.request({ action: 'set', path: 'still', value: 1, id: 'w' })).event).toBe('ack');
    await socket.close();
  });

  it('refuses a token of another user or project, or an invalid one, with error then 1008', async () => {
    const other = await addPlayer(t, 'someone_else');
    const otherProject = await t.otherProject();
    const far = nowSeconds() + 3600;
    for (const token of [
      await tokenOf(t.project.projectId, other.userId, far),
      otherProject.headers.authorization?.slice('Bearer '.length) ?? '',
      await tokenOf(t.project.projectId, t.userId, nowSeconds() - 10),
      await tokenOf(t.project.projectId, t.userId, far, 'another-secret-that-is-long-enough-000000'),
      'not-a-jwt',
    ]) {
      const socket = await t.socket();
      const reply = await socket.request({ action: 'auth', access_token: token, id: 'x' });
      expect(reply.event).toBe('error');
      expect((await socket.closed).code).toBe(1008);
    }
  });

  it('answers an auth without access_token with an error and stays open', async () => {
    const socket = await t.socket();
    for (const message of [
      { action: 'auth', id: 1 },
      { action: 'auth', access_token: 5, id: 2 },
    ]) {
      expect((await socket.request(message)).event).toBe('error');
    }
    expect((await socket.request({ action: 'subscribe', path: 'x', id: 3 })).event).toBe('init');
    await socket.close();
  });
});
