import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, detailOf, statusOf, type ValidationIssue } from '../core/errors.js';
import { FunctionRejection } from '../core/functions/functions-module.js';

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

const contextNames: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** Turns Fastify's schema validation failure into the §0 422 items. */
function validationIssues(error: FastifyError): ValidationIssue[] {
  const context = contextNames[error.validationContext ?? 'body'] ?? 'body';
  return ((error.validation ?? []) as AjvIssue[]).map((issue) => {
    const loc: (string | number)[] = [context];
    for (const part of issue.instancePath.split('/').slice(1)) {
      loc.push(/^\d+$/.test(part) ? Number(part) : part.replaceAll('~1', '/').replaceAll('~0', '~'));
    }
    const missing = issue.params.missingProperty;
    if (typeof missing === 'string') loc.push(missing);
    const type = issue.keyword === 'required' ? 'missing' : issue.keyword;
    return { loc, msg: issue.message ?? 'is invalid', type };
  });
}

/** Maps Fastify's own errors (body parsing, limits) to domain errors; null when not one of them. */
function fromFastifyError(error: FastifyError): AppError | null {
  if (error.validation) return new AppError('validation', 'Validation failed', validationIssues(error));
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'Request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('unsupported_media_type', 'Content-Type must be application/json');
    default:
      return null;
  }
}

/** The body of an error response (§0). */
export function errorBody(error: AppError): { detail: string | ValidationIssue[] } {
  return { detail: detailOf(error) };
}

function sendKnown(error: AppError, request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'unavailable') request.log.warn({ err: error.cause ?? error }, error.message);
  reply.status(statusOf[error.code]).send(errorBody(error));
}

/** Fastify error handler: known errors get their status and `{detail}`; anything else is a logged 500. */
export function handleError(error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof AppError) {
    sendKnown(error, request, reply);
    return;
  }
  // A server function's `reject(status, detail)` (§16): its own status, 400–499.
  if (error instanceof FunctionRejection) {
    reply.status(error.status).send({ detail: error.detail });
    return;
  }
  const known = fromFastifyError(error);
  if (known) {
    sendKnown(known, request, reply);
    return;
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    reply.status(error.statusCode).send({ detail: error.message });
    return;
  }
  request.log.error({ err: error }, 'unhandled error');
  reply.status(500).send({ detail: 'Internal server error' });
}
