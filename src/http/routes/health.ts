import Type from 'typebox';
import type { Bus } from '../../core/bus.js';
import type { Storage } from '../../core/ports.js';
import type { HttpApp } from '../server.js';

const HealthSchema = Type.Object({ status: Type.String() });
const ReadySchema = Type.Object({
  status: Type.String(),
  checks: Type.Record(Type.String(), Type.String()),
});

// A load balancer's probe must get an answer even when a dependency hangs instead of refusing.
const CHECK_TIMEOUT_MS = 2_000;

/** 'ok' when `check` resolves in time, else 'unavailable'. */
async function reachable(check: Promise<void>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check, timeout]);
    return 'ok';
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

/** `/healthz` (process up) and `/readyz` (each dependency: database and bus); no auth (§7). */
export function healthRoutes(app: HttpApp, deps: { storage: Storage; bus: Bus }): void {
  app.get('/healthz', { schema: { response: { 200: HealthSchema } } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { response: { 200: ReadySchema, 503: ReadySchema } } }, async (_request, reply) => {
    const [database, bus] = await Promise.all([reachable(deps.storage.ping()), reachable(deps.bus.ping())]);
    const checks = { database, bus };
    const ready = Object.values(checks).every((state) => state === 'ok');
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
  });
}
