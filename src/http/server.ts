import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type HookHandlerDoneFunction,
  LogController,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import type { CorsOrigins } from '../config.js';
import { AppError } from '../core/errors.js';
import { registerConsole } from './console-route.js';
import { registerCors } from './cors.js';
import { handleError } from './errors.js';
import { answerExpectContinue } from './expect-continue.js';
import { logSerializers, redactPaths } from './logging.js';
import { registerOpenApi } from './openapi.js';
import { type RateLimits, registerRateLimits } from './rate-limit.js';
import { lazySerializer, lazyValidator } from './schema-compilers.js';
import { coalesceResponseWrites } from './write-coalescing.js';

/** A Fastify instance whose route schemas are TypeBox schemas. */
export type HttpApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Settings of the HTTP layer. */
export interface HttpOptions {
  bodyLimit: number;
  logLevel: string;
  /** Where logs go and at which level (tests capture them); redaction always applies. */
  logger?: { level?: string; stream?: { write(line: string): void } };
  rateLimits: RateLimits;
  /** Browser origins allowed by CORS (`CDS_CORS_ORIGINS`); default every origin. */
  corsOrigins?: CorsOrigins;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

function emptyBodyAsObject(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.body === undefined || request.body === null) request.body = {};
  done();
}

function hookList<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/**
 * Builds the Fastify instance with the §0 conventions, OpenAPI and rate limits; routes are
 * registered by the caller.
 */
export async function createHttpApp(options: HttpOptions): Promise<HttpApp> {
  const level = options.logger?.level ?? options.logLevel;
  const app = Fastify({
    logger: { level: options.logLevel, ...options.logger, redact: redactPaths, serializers: logSerializers },
    // Two lines per request cost about as much as serving a small request (npm run bench: /healthz
    // at half speed), so requests are logged only at debug and trace; errors are logged at any level.
    logController: new LogController({ disableRequestLogging: level !== 'debug' && level !== 'trace' }),
    bodyLimit: options.bodyLimit,
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16_384 },
    return503OnClosing: true,
    // A URL whose percent-encoding is not UTF-8 is refused by the router before any hook runs.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      const known =
        error.code === 'FST_ERR_BAD_URL'
          ? new AppError('bad_request', 'Malformed URL: invalid percent-encoding')
          : error;
      handleError(known, request as FastifyRequest, reply as unknown as FastifyReply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorateRequest('projectId', 0);
  app.decorateRequest('userId', 0);
  app.setValidatorCompiler(({ schema, httpPart }) => lazyValidator(httpPart, schema));
  app.setSerializerCompiler(({ schema }) => lazySerializer(schema));

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(
        new AppError('validation', 'Malformed JSON', [
          { loc: ['body'], msg: `Malformed JSON: ${(error as Error).message}`, type: 'json_invalid' },
        ]),
        undefined,
      );
    }
  });

  // Hooks that do not wait for anything take `done` instead of returning a promise: a request
  // then skips a microtask hop per hook (npm run bench measures a few µs of each request here).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // A missing body where one is optional counts as `{}` (§0); only routes whose body is an object
  // check (a server function's input is any JSON, and none is null).
  app.addHook('onRoute', (route) => {
    const body = route.schema?.body as { type?: unknown } | undefined;
    if (body?.type === 'object') route.preValidation = [...hookList(route.preValidation), emptyBodyAsObject];
  });
  answerExpectContinue(app as unknown as HttpApp);
  coalesceResponseWrites(app);
  app.setErrorHandler(handleError);
  await registerCors(app as unknown as HttpApp, options.corsOrigins ?? '*');
  await registerRateLimits(app as unknown as HttpApp, options.rateLimits);
  await registerOpenApi(app as unknown as HttpApp);
  await registerConsole(app as unknown as HttpApp);
  app.setNotFoundHandler((_request, reply) => {
    reply.status(404).send({ detail: 'Not Found' });
  });
  return app as unknown as HttpApp;
}
