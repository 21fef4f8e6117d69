/** CORS: a browser page on another origin can call the service; the allowed origins are configurable. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCorsOrigins } from '../../src/config.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { sqliteEngine } from '../support/engines.js';

const GAME = 'https://game.example';

/** A browser's preflight before a PUT with the §1 headers and a precondition. */
const preflight = (t: TestApp, origin: string) =>
  t.app.http.inject({
    method: 'OPTIONS',
    url: '/documents/docs/saves/s1',
    headers: {
      origin,
      'access-control-request-method': 'PUT',
      'access-control-request-headers': 'x-client-id,x-client-secret,authorization,content-type,if-match',
    },
  });

describe('CORS with the default (every origin)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(sqliteEngine);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers a preflight without credentials, allowing the §1 headers and If-Match', async () => {
    const response = await preflight(t, GAME);
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(String(response.headers['access-control-allow-methods'])).toContain('PUT');
    const allowed = String(response.headers['access-control-allow-headers']).split(/,\s*/);
    for (const header of ['x-client-id', 'x-client-secret', 'authorization', 'content-type', 'if-match']) {
      expect(allowed).toContain(header);
    }
  });

  it('puts the headers on answers and errors, and exposes ETag', async () => {
    const put = await t.app.http.inject({
      method: 'PUT',
      url: '/documents/docs/saves/s1',
      headers: { ...t.headers, origin: GAME },
      payload: { data: { level: 1 } },
    });
    expect(put.statusCode).toBe(200);
    expect(put.headers['access-control-allow-origin']).toBe('*');
    expect(String(put.headers['access-control-expose-headers']).split(/,\s*/)).toContain('etag');
    const denied = await t.app.http.inject({
      method: 'GET',
      url: '/documents/docs/saves/s1',
      headers: { origin: GAME },
    });
    expect(denied.statusCode).toBe(401);
    expect(denied.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('CORS with a list of origins', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(sqliteEngine, { CDS_CORS_ORIGINS: `${GAME}/, https://other.example` });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('allows only the listed origins', async () => {
    const allowed = await preflight(t, GAME);
    expect(allowed.headers['access-control-allow-origin']).toBe(GAME);
    expect(String(allowed.headers.vary)).toMatch(/origin/i);
    const refused = await preflight(t, 'https://evil.example');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(sqliteEngine, { CDS_CORS_ORIGINS: 'off' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('sends no CORS headers', async () => {
    const response = await t.app.http.inject({ method: 'GET', url: '/healthz', headers: { origin: GAME } });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('parses the setting', () => {
    expect(parseCorsOrigins(' * ')).toBe('*');
    expect(parseCorsOrigins('off')).toBe('off');
    expect(parseCorsOrigins('https://a.example/, ,https://b.example')).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
  });
});
