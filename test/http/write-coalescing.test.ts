/** Responses held to the end of the event-loop turn still reach each client, intact and whole. */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coalesceResponseWrites } from '../../src/http/write-coalescing.js';

describe('coalesceResponseWrites', () => {
  let app: FastifyInstance;
  let base: string;
  const order: string[] = [];
  beforeAll(async () => {
    app = Fastify();
    coalesceResponseWrites(app);
    // Registered after it, so it runs when a held answer is let go.
    app.addHook('onSend', (request, _reply, _payload, done) => {
      if (request.url === '/echo/666') throw new Error('a later onSend hook failed');
      order.push(`sent ${request.url}`);
      done();
    });
    // Answers within the handler, as a synchronous store read does.
    app.get<{ Params: { n: string } }>('/echo/:n', (request, reply) => {
      order.push(`handled ${request.url}`);
      reply.send({ n: Number(request.params.n), pad: 'x'.repeat(Number(request.params.n) * 10) });
    });
    app.get('/fail', async () => {
      throw Object.assign(new Error('refused'), { statusCode: 409 });
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers 200 concurrent requests, each with its own body', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, async (_, n) => {
        const response = await fetch(`${base}/echo/${n}`);
        return { status: response.status, body: (await response.json()) as { n: number; pad: string } };
      }),
    );
    answers.forEach((answer, n) => {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ n, pad: 'x'.repeat(n * 10) });
    });
  });

  it('holds error answers too, and writes them', async () => {
    const [ok, failed] = await Promise.all([fetch(`${base}/echo/1`), fetch(`${base}/fail`)]);
    expect(ok.status).toBe(200);
    expect(failed.status).toBe(409);
    expect(((await failed.json()) as { message: string }).message).toBe('refused');
  });

  it('still sends the other answers of a turn when letting one go throws', async () => {
    const [failed, ok] = await Promise.all([
      app.inject({ method: 'GET', url: '/echo/666' }),
      app.inject({ method: 'GET', url: '/echo/4' }),
    ]);
    expect(failed.statusCode).toBe(500);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ n: 4, pad: 'x'.repeat(40) });
  });

  it('sends the answers of one turn after that turn has handled all of them', async () => {
    order.length = 0;
    await Promise.all([app.inject({ method: 'GET', url: '/echo/2' }), app.inject({ method: 'GET', url: '/echo/3' })]);
    expect(order).toEqual(['handled /echo/2', 'handled /echo/3', 'sent /echo/2', 'sent /echo/3']);
  });
});
