import type { FastifyInstance, HookHandlerDoneFunction } from 'fastify';

/**
 * Holds each answer until the end of the event-loop turn, then writes all of them back to back.
 * An answer written while its client is asleep pays for waking it (on a virtual machine, an
 * interrupt to another vCPU: a bare route's socket write went from about 10 to 25 µs here once
 * the route did 20 µs of work); writes in a row find the client awake. Under load this took
 * SQLite document GET from 77 to 50 µs of CPU per request; a lone request waits one `setImmediate`.
 */
export function coalesceResponseWrites(app: FastifyInstance): void {
  let held: HookHandlerDoneFunction[] = [];
  const writeHeld = () => {
    const writes = held;
    held = [];
    // A hook that throws while its answer is let go is Fastify's to answer (500); the rest go on.
    for (const write of writes) write();
  };
  app.addHook('onSend', (_request, _reply, _payload, done) => {
    if (held.length === 0) setImmediate(writeHeld);
    held.push(done);
  });
}
