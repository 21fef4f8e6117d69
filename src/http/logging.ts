import type { FastifyRequest } from 'fastify';

/** Header paths pino must never print (§1: tokens and secrets never appear in logs). */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers["x-client-secret"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-client-secret"]',
];

const SECRET_QUERY = /([?&](?:client_secret|access_token|refresh_token|password)=)[^&]*/gi;

/** Masks secrets that browsers must pass in the query string (WebSocket handshake). */
export function maskUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[Redacted]');
}

/** Request serializer: method, masked URL, request id; never headers or bodies. */
export const logSerializers = {
  req(request: FastifyRequest) {
    return { method: request.method, url: maskUrl(request.url), id: request.id };
  },
};
