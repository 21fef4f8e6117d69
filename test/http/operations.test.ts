import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { sqliteEngine } from '../support/engines.js';

describe('operations: /metrics, /docs and rate limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(sqliteEngine, { CDS_RATE_LIMIT_PER_CLIENT: '5', CDS_RATE_LIMIT_PER_IP: '3' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves Prometheus metrics counting requests by route and status', async () => {
    await t.app.http.inject({ method: 'GET', url: '/healthz' });
    const res = await t.app.http.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toMatch(/cds_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    expect(res.body).toContain('cds_http_request_duration_seconds_bucket');
    expect(res.body).toContain('cds_websocket_connections');
  });

  it('serves the OpenAPI 3.1 document and a browsable UI under /docs', async () => {
    const spec = await t.app.http.inject({ method: 'GET', url: '/docs/json' });
    expect(spec.statusCode).toBe(200);
    const document = spec.json();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/documents/query/{collection}');
    const ui = await t.app.http.inject({ method: 'GET', url: '/docs' });
    expect([200, 302]).toContain(ui.statusCode);
  });

  it('limits requests per client id, answering 429 with Retry-After and a detail', async () => {
    const headers = { 'x-client-id': 'limited-client', 'x-client-secret': 'wrong' };
    const statuses: number[] = [];
    let last = await t.app.http.inject({ method: 'GET', url: '/documents/docs/a/b', headers });
    statuses.push(last.statusCode);
    for (let i = 0; i < 5; i += 1) {
      last = await t.app.http.inject({ method: 'GET', url: '/documents/docs/a/b', headers });
      statuses.push(last.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    expect(last.json().detail).toMatch(/Rate limit exceeded/);
  });

  it('limits requests without a client id per IP', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      statuses.push((await t.app.http.inject({ method: 'GET', url: '/nope', remoteAddress: '10.9.8.7' })).statusCode);
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
  });
});
