/** `Expect: 100-continue` (RFC 9110): the 100 only for a body the route will read, by each route's body limit. */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleError } from '../../src/http/errors.js';
import { answerExpectContinue } from '../../src/http/expect-continue.js';
import type { HttpApp } from '../../src/http/server.js';
import { sendExpectingContinue } from '../support/expect-continue.js';

describe('answerExpectContinue', () => {
  let app: FastifyInstance;
  let base: string;
  beforeAll(async () => {
    app = Fastify({ bodyLimit: 1024 });
    answerExpectContinue(app as unknown as HttpApp);
    app.setErrorHandler(handleError);
    app.put('/global', (request) => ({ bytes: JSON.stringify(request.body).length }));
    app.put('/larger', { bodyLimit: 4096 }, (request) => ({ bytes: JSON.stringify(request.body).length }));
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app.close();
  });

  const body = (bytes: number) => JSON.stringify({ pad: 'x'.repeat(bytes - 10) });
  const tooLarge = { continued: false, status: 413, body: '{"detail":"Request body is too large"}' };

  it('refuses a Content-Length over the server limit before any 100 Continue, and continues one within it', async () => {
    expect(await sendExpectingContinue('PUT', `${base}/global`, body(2048))).toEqual(tooLarge);
    expect(await sendExpectingContinue('PUT', `${base}/global`, body(1000))).toEqual({
      continued: true,
      status: 200,
      body: '{"bytes":1000}',
    });
  });

  it("uses a route's own body limit", async () => {
    expect(await sendExpectingContinue('PUT', `${base}/larger`, body(2048))).toEqual({
      continued: true,
      status: 200,
      body: '{"bytes":2048}',
    });
    expect(await sendExpectingContinue('PUT', `${base}/larger`, body(5000))).toEqual(tooLarge);
  });
});
