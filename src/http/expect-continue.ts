/**
 * `Expect: 100-continue` (RFC 9110 §10.1.1): the `100 Continue` goes out only once the request
 * has passed its `onRequest` hooks (authentication, rate limits) and its `Content-Length` is
 * within the route's body limit. Otherwise the final answer (a 413 with the §0 body, a 401, …)
 * goes first, so the client reads it instead of sending a body that would be refused and failing
 * on the closed connection (EPIPE). Node answers `100 Continue` at once unless the server listens
 * to `checkContinue`.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { AppError } from '../core/errors.js';
import type { HttpApp } from './server.js';

/** Requests whose client waits for `100 Continue` before it sends the body. */
const awaitingContinue = new WeakSet<object>();

/** Methods whose requests Fastify never reads a body of: nothing to continue. */
const BODILESS = new Set(['GET', 'HEAD']);

function continueOrRefuse(
  request: FastifyRequest,
  reply: FastifyReply,
  _payload: unknown,
  done: HookHandlerDoneFunction,
): void {
  if (!awaitingContinue.delete(request.raw)) {
    done();
    return;
  }
  const length = Number(request.headers['content-length']);
  // The same check and error as Fastify's body reader, which would otherwise make it after the 100.
  if (length > request.routeOptions.bodyLimit) {
    done(new AppError('payload_too_large', 'Request body is too large'));
    return;
  }
  reply.raw.writeContinue();
  done();
}

/** Makes `app` answer `100 Continue` only to requests it will read the body of (see above). */
export function answerExpectContinue(app: HttpApp): void {
  app.server.on('checkContinue', (request, response) => {
    awaitingContinue.add(request);
    app.server.emit('request', request, response);
  });
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((method) => BODILESS.has(method))) return;
    const hooks = route.preParsing === undefined ? [] : [route.preParsing].flat();
    route.preParsing = [continueOrRefuse, ...hooks];
  });
}
