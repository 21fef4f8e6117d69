/** The AsyncAPI 3 document of the WebSocket (§4, §10), served beside the OpenAPI one. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { sqliteEngine } from '../support/engines.js';

describe('GET /asyncapi.json', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(sqliteEngine);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('describes every client action and server event of §4, §10, §16 and §17', async () => {
    const response = await t.app.http.inject({ method: 'GET', url: '/asyncapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.asyncapi).toBe('3.0.0');
    const messages = document.channels.realtime.messages as Record<
      string,
      { payload: { anyOf?: unknown[]; properties?: Record<string, { const?: string }> } }
    >;
    const names = (key: 'action' | 'event') =>
      new Set(
        Object.values(messages)
          .flatMap((m) => (m.payload.anyOf ?? [m.payload]).map((p) => (p as typeof m.payload).properties?.[key]?.const))
          .filter(Boolean),
      );
    expect(names('action')).toEqual(
      new Set([
        'subscribe',
        'unsubscribe',
        'set',
        'patch',
        'delete',
        'auth',
        'listen',
        'unlisten',
        'call',
        'on_disconnect',
      ]),
    );
    expect(names('event')).toEqual(
      new Set(['init', 'update', 'resume', 'ack', 'error', 'cancel', 'snapshot', 'changes', 'result']),
    );
    // The admins' socket (§13) speaks the same protocol: every message, by reference.
    expect(document.channels.adminRealtime.address).toBe('/admin/projects/{project_id}/realtime/ws');
    expect(Object.keys(document.channels.adminRealtime.messages)).toEqual(Object.keys(messages));
    for (const operation of Object.values(document.operations) as { messages: { $ref: string }[] }[]) {
      for (const { $ref } of operation.messages) expect(messages[$ref.split('/').pop() as string]).toBeDefined();
    }
  });

  it('stays out of the OpenAPI document', async () => {
    const openapi = (await t.app.http.inject({ method: 'GET', url: '/docs/json' })).json();
    expect(Object.keys(openapi.paths)).not.toContain('/asyncapi.json');
  });
});
