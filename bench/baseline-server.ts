/**
 * The bare baselines, run as their own process like the service: Fastify routes with no auth, no
 * storage and no logging (a fixed document for reads, a parsed JSON body for writes, a fixed
 * 100-document page for lists and queries), and a bare `ws` broadcast server for fan-out.
 * Ports come from BENCH_HTTP_PORT and BENCH_WS_PORT; SIGTERM stops both.
 */
import Fastify from 'fastify';
import { startBareBroadcast } from './bare-broadcast.js';
import { FIXED_DOCUMENT, FIXED_DOCUMENT_PAGE } from './payloads.js';

interface WriteBody {
  data?: Record<string, unknown>;
}

const app = Fastify();
app.get('/bare/doc', async () => FIXED_DOCUMENT);
app.get('/bare/docs', async () => FIXED_DOCUMENT_PAGE);
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
