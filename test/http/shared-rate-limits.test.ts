/** Rate limits counted in Redis (§14): two instances sharing one Redis share one count. */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { sqliteEngine } from '../support/engines.js';
import { redisUnavailable, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/services.js';

describe.skipIf(await redisUnavailable())('rate limits counted in Redis', () => {
  const prefix = uniqueRedisPrefix();
  const env = {
    REDIS_URL: TEST_REDIS_URL,
    CDS_REDIS_PREFIX: prefix,
    CDS_RATE_LIMIT_PER_CLIENT: '6',
    CDS_RATE_LIMIT_PER_IP: '1000',
  };
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    [a, b] = await Promise.all([startTestApp(sqliteEngine, env), startTestApp(sqliteEngine, env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  const hit = (t: TestApp, clientId: string) =>
    t.app.http.inject({ method: 'GET', url: '/auth/me', headers: { 'x-client-id': clientId } });

  it('refuses the request over the limit whichever instance it reaches, under the deployment prefix', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await hit(a, 'shared-client')).statusCode, (await hit(b, 'shared-client')).statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429]);
    const refused = await hit(a, 'shared-client');
    expect(refused.json().detail).toMatch(/^Rate limit exceeded/);
    // Another client has its own count.
    expect((await hit(b, 'another-client')).statusCode).toBe(401);
    const inspector = new Redis(TEST_REDIS_URL);
    const keys = await inspector.keys(`${prefix}:*`);
    await inspector.quit();
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((key) => key.startsWith(`${prefix}:rate-limit:`))).toBe(true);
  });
});
