/**
 * An instance killed with SIGKILL in the middle of a write storm loses no write it had
 * acknowledged: after a restart on the same database every acknowledged document and realtime
 * value is there. Real processes, on SQLite (same data directory) and on PostgreSQL (same schema).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, firstStart, freshSchema, killServer, signUp, startInstances, stopAll } from '../support/cluster.js';
import { type EngineFixture, engines } from '../support/engines.js';
import type { ServerProcess } from '../support/server-process.js';

const WORKERS = 16;
// The kill comes after this many acknowledgements, while every worker still has a request in flight.
const KILL_AFTER = 400;

/** Environment of an instance on a fresh database of `engine`, and its cleanup. */
function freshDatabase(engine: EngineFixture['name']): { env: Record<string, string>; drop(): Promise<void> } {
  if (engine === 'postgres') return freshSchema();
  const dir = mkdtempSync(join(tmpdir(), 'cds-crash-'));
  return { env: { CDS_DATA_DIR: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`SIGKILL during a write storm on ${engine.name}`, () => {
    const database = freshDatabase(engine.name);
    const servers: ServerProcess[] = [];
    afterAll(async () => {
      await stopAll(servers);
      await database.drop();
    });

    it('loses no acknowledged write', async () => {
      const [first] = await startInstances(1, database.env);
      servers.push(first as ServerProcess);
      const server = first as ServerProcess;
      const project = firstStart([server]);
      const player = await signUp(server.baseUrl, project, 'storm_player');

      const acknowledged: number[] = [];
      let next = 0;
      let killed = false;
      let killing: Promise<void> | null = null;
      const worker = async () => {
        while (!killed) {
          const n = next++;
          const url =
            n % 2 === 0 ? `${server.baseUrl}/documents/docs/storm/d${n}` : `${server.baseUrl}/realtime/db/storm/r${n}`;
          const body = n % 2 === 0 ? { data: { n } } : { value: { n } };
          try {
            const response = await call('PUT', url, player.headers, body);
            if (response.status === 200) acknowledged.push(n);
          } catch {
            // The connection died with the process: this write was never acknowledged.
          }
          if (acknowledged.length >= KILL_AFTER && !killing) {
            killing = killServer(server).then(() => {
              killed = true;
            });
          }
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, worker));
      expect(server.child.signalCode).toBe('SIGKILL');
      expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);

      const [restarted] = await startInstances(1, database.env);
      servers.push(restarted as ServerProcess);
      const base = (restarted as ServerProcess).baseUrl;
      expect((restarted as ServerProcess).output()).not.toContain('client_secret');
      const documents = new Map<string, unknown>();
      for (let after = ''; ; ) {
        const page = await call(
          'GET',
          `${base}/documents/collections/storm?limit=1000${after ? `&start_after=${after}` : ''}`,
          player.headers,
        );
        const items = (page.body as { documents: { path: string; data: unknown }[] }).documents;
        for (const item of items) documents.set(item.path, item.data);
        if (items.length < 1000) break;
        after = encodeURIComponent((items.at(-1) as { path: string }).path);
      }
      const tree = await call('GET', `${base}/realtime/db/storm`, player.headers);
      const values = ((tree.body as { value: Record<string, unknown> | null }).value ?? {}) as Record<string, unknown>;
      const lost = acknowledged.filter((n) =>
        n % 2 === 0 ? !documents.has(`storm/d${n}`) : (values[`r${n}`] as { n?: number } | undefined)?.n !== n,
      );
      expect(lost).toEqual([]);
      console.log(
        `${engine.name}: ${acknowledged.length} acknowledged before SIGKILL, all present after restart (${documents.size + Object.keys(values).length} stored)`,
      );
    });
  });
}
