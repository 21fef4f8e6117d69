/**
 * The bare baselines, run as their own process like the service: Fastify routes with no auth, no
 * storage and no logging (a fixed document for reads, a parsed JSON body for writes, a fixed
 * 100-document page for lists and queries, a fixed 100-user leaderboard page that shows what a
 * page of that size costs by itself), and a bare `ws` broadcast server for fan-out.
 * Ports come from BENCH_HTTP_PORT and BENCH_WS_PORT; SIGTERM stops both.
 */
import Fastify from 'fastify';
import { startBareBroadcast } from './bare-broadcast.js';
import { FIXED_DOCUMENT, FIXED_DOCUMENT_PAGE, FIXED_USERS_PAGE } from './payloads.js';

interface WriteBody {
  data?: Record<string, unknown>;
}

const app = Fastify();
app.get('/bare/doc', async () => FIXED_DOCUMENT);
app.get('/bare/docs', async () => FIXED_DOCUMENT_PAGE);
// Serialized through a response schema, as the service's pages are.
const integer = { type: 'integer' };
const usersPageSchema = {
  type: 'object',
  properties: {
    pagination: {
      type: 'object',
      properties: { limit: integer, offset: integer, total: integer, has_more: { type: 'boolean' } },
    },
    league: { type: 'string' },
    users: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          rank: { type: ['integer', 'null'] },
          user_id: integer,
          stat_value: { type: ['number', 'null'] },
          league: { type: 'string' },
        },
      },
    },
  },
};
app.get('/bare/users', { schema: { response: { 200: usersPageSchema } } }, async () => FIXED_USERS_PAGE);
app.post<{ Body: WriteBody }>('/bare/doc', async (request) => ({
  id: FIXED_DOCUMENT.id,
  path: FIXED_DOCUMENT.path,
  data: request.body.data ?? {},
  created: true,
}));

await app.listen({ host: '127.0.0.1', port: Number(process.env.BENCH_HTTP_PORT ?? 0) });
const broadcast = await startBareBroadcast(Number(process.env.BENCH_WS_PORT ?? 0));

process.once('SIGTERM', () => {
  Promise.all([app.close(), broadcast.close()]).then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
