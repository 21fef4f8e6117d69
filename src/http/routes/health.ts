import Type from 'typebox';
import type { Storage } from '../../core/ports.js';
import type { HttpApp } from '../server.js';

const HealthSchema = Type.Object({ status: Type.String() });
const ReadySchema = Type.Object({
  status: Type.String(),
  checks: Type.Record(Type.String(), Type.String()),
});

/** `/healthz` (process up) and `/readyz` (dependencies reachable); no auth (§7). */
export function healthRoutes(app: HttpApp, deps: { storage: Storage }): void {
  app.get('/healthz', { schema: { response: { 200: HealthSchema } } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { response: { 200: ReadySchema, 503: ReadySchema } } }, async (_request, reply) => {
    const database = await deps.storage.ping().then(
      () => 'ok',
      () => 'unavailable',
    );
    const checks = { database };
    const ready = Object.values(checks).every((state) => state === 'ok');
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
  });
}
