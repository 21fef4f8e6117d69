import type { FastifyReply } from 'fastify';
import type { TreeJson } from '../core/realtime/tree-service.js';

const CLOSE_BRACE = Buffer.from('}');

/**
 * Answers a tree GET `{path, value}` (§3) with the value's JSON text spliced in as it is, and its
 * ETag (§11): the text is already JSON, so the response schema's serializer is not run over it.
 */
export function sendTreeJson(reply: FastifyReply, answer: TreeJson): FastifyReply {
  return reply
    .header('etag', `"${answer.etag}"`)
    .type('application/json; charset=utf-8')
    .send(Buffer.concat([Buffer.from(`{"path":${JSON.stringify(answer.path)},"value":`), answer.json, CLOSE_BRACE]));
}
