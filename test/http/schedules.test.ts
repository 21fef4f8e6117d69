/**
 * Schedules (§16) on three instances of the service over one database (SQLite: three connections to
 * one file; PostgreSQL: three pools on one schema), driven by one test clock: each tick runs once
 * across the cluster for each project the module serves, with its context (project, no caller, a
 * fresh request id, the admin API); a tick from before the schedule was loaded does not run; a
 * throw or a time-out is reported as `schedule:<name>` and later ticks still run; a tick missed while
 * no instance ran is run once when one starts again (only the latest).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { FunctionRegistry } from '../../src/core/functions/function-registry.js';
import type { Storage } from '../../src/core/ports.js';
import { defineFunctions } from '../../src/functions/index.js';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.js';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { TEST_JWT_SECRET } from '../support/app.js';
import { ManualClock } from '../support/clock.js';
import { engines, TEST_DATABASE_URL, uniqueSchemaName } from '../support/engines.js';
import { eventually } from '../support/webhook-receiver.js';

const at = (hh: number, mm: number) => Date.UTC(2026, 0, 1, hh, mm);

/** One run of a schedule as its function saw it. */
interface Run {
  schedule: string;
  project: number;
  /** The clock's time when it ran. */
  at: number;
  caller: unknown;
  requestId: string;
}

/** Sums the samples of `metric` with these labels over every instance's `/metrics`. */
async function total(apps: readonly App[], metric: string, labels: Record<string, string>): Promise<number> {
  let sum = 0;
  for (const app of apps) {
    const text = (await app.http.inject({ method: 'GET', url: '/metrics' })).body;
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`${metric}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
    if (line) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`schedules on three instances over one ${engine.name} database`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'cds-schedules-'));
    const schema = uniqueSchemaName();
    const clock = new ManualClock(at(10, 30));
    const config = loadConfig({
      CDS_JWT_SECRET: TEST_JWT_SECRET,
      CDS_LOG_LEVEL: 'silent',
      CDS_DATA_DIR: dir,
      CDS_FUNCTION_TIMEOUT_MS: '150',
    });
    const runs: Run[] = [];
    /** Every instance's log lines, parsed. */
    const lines: Record<string, unknown>[] = [];
    const logger = { level: 'info', stream: { write: (line: string) => lines.push(JSON.parse(line)) } };
    let apps: App[] = [];
    let projects: number[] = [];
    let registry = FunctionRegistry.empty;

    const open = async (): Promise<Storage> =>
      engine.name === 'sqlite'
        ? SqliteStorage.open(join(dir, 'cds.db'))
        : PostgresStorage.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 4 });
    const runsOf = (schedule: string) =>
      runs
        .filter((run) => run.schedule === schedule)
        .map((run) => `${run.project}@${new Date(run.at).toISOString().slice(11, 16)}`)
        .sort();
    /** Moves the clock and lets every instance look for due ticks, as their timers would. */
    const tickTo = async (time: number) => {
      clock.set(time);
      await Promise.all(apps.map((app) => app.services.schedules.runDue()));
    };

    beforeAll(async () => {
      const setup = await open();
      const orgId = (await setup.accounts.ensureOrganisation('org')).id;
      const player = { name: 'player', permissions: [] };
      projects = [
        (await setup.accounts.createProject(orgId, 'one', player)).id,
        (await setup.accounts.createProject(orgId, 'two', player)).id,
      ];
      await setup.close();
      const record = (schedule: string) => (ctx: { project_id: number; caller: unknown; request_id: string }) => {
        runs.push({
          schedule,
          project: ctx.project_id,
          at: clock.now(),
          caller: ctx.caller,
          requestId: ctx.request_id,
        });
      };
      registry = FunctionRegistry.of([
        {
          file: '/srv/functions/every.ts',
          definition: defineFunctions({
            projects: '*',
            schedule: {
              hourly: {
                cron: '0 * * * *',
                run: async (ctx) => {
                  record('hourly')(ctx);
                  ctx.log.info('hourly ran');
                  await ctx.admin.documents.put(`ticks/t${ctx.now()}`, { data: { at: ctx.now() } });
                },
              },
            },
          }),
        },
        {
          file: '/srv/functions/first.ts',
          definition: defineFunctions({
            // 999999 does not exist: nothing runs for it.
            projects: [projects[0] ?? 0, 999_999],
            schedule: {
              boom: {
                cron: '*/15 * * * *',
                run: (ctx) => {
                  record('boom')(ctx);
                  throw new Error('boom');
                },
              },
              stuck: { cron: '0 */2 * * *', run: () => new Promise(() => undefined) },
            },
          }),
        },
      ]);
      // One after the other: the first migrates the database.
      for (let i = 0; i < 3; i += 1)
        apps.push(await buildApp(config, { storage: await open(), clock, functions: registry, logger }));
    });
    afterAll(async () => {
      for (const app of apps) await app.close();
      if (engine.name === 'postgres') {
        const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
      rmSync(dir, { recursive: true, force: true });
    });

    it('runs each tick once across the instances, for each project served, and keeps going after a throw', async () => {
      const [one, two] = projects as [number, number];
      await tickTo(at(10, 44));
      // 10:00 and 10:30 came before the schedules were loaded: not run.
      expect(runs).toEqual([]);
      for (const time of [at(11, 0), at(11, 0) + 500, at(11, 15), at(11, 40), at(12, 0), at(12, 1)]) await tickTo(time);

      expect(runsOf('hourly')).toEqual([`${one}@11:00`, `${one}@12:00`, `${two}@11:00`, `${two}@12:00`].sort());
      // Each run is recorded at the clock's time: the 11:30 tick ran when the clock had reached 11:40.
      expect(runsOf('boom')).toEqual([`${one}@11:00`, `${one}@11:15`, `${one}@11:40`, `${one}@12:00`]);
      for (const run of runs) expect(run.caller).toBeNull();
      expect(new Set(runs.map((run) => run.requestId)).size).toBe(runs.length);
      const written = (await apps[1]?.services.documents.query(one, 'ticks', { where: [] })) ?? [];
      const times = written.map((json) => (JSON.parse(json) as { data: { at: number } }).data.at);
      expect(times.sort()).toEqual([at(11, 0), at(12, 0)]);

      expect(await total(apps, 'cds_function_calls_total', { name: 'schedule:hourly', outcome: 'ok' })).toBe(4);
      expect(await total(apps, 'cds_function_calls_total', { name: 'schedule:boom', outcome: 'failed' })).toBe(4);
      expect(await total(apps, 'cds_function_calls_total', { name: 'schedule:stuck', outcome: 'timed_out' })).toBe(1);

      // The function's own lines and the failures carry the schedule's name and project.
      const logged = (msg: string) => lines.filter((line) => line.msg === msg);
      expect(logged('hourly ran')).toHaveLength(4);
      for (const line of logged('hourly ran')) expect(line.schedule).toBe('hourly');
      const failures = logged("schedule 'boom' failed");
      expect(failures).toHaveLength(4);
      for (const line of failures) {
        expect(line).toMatchObject({ schedule: 'boom', project_id: one, err: { message: 'boom' } });
      }
      expect(logged("schedule 'stuck' timed out")).toMatchObject([{ schedule: 'stuck', project_id: one }]);
    }, 30_000);

    it('runs the latest tick missed while no instance ran, once, when an instance starts', async () => {
      for (const app of apps) await app.close();
      apps = [];
      runs.length = 0;
      clock.set(at(15, 20));
      // Alone, on its own timer: it finds the ticks missed since 12:00 at start.
      apps.push(await buildApp(config, { storage: await open(), clock, functions: registry }));
      const [one, two] = projects as [number, number];
      await eventually(() => runs.length >= 3, 10_000);
      apps.push(await buildApp(config, { storage: await open(), clock, functions: registry }));
      await tickTo(at(15, 29));

      expect(runsOf('hourly')).toEqual([`${one}@15:20`, `${two}@15:20`].sort());
      expect(runsOf('boom')).toEqual([`${one}@15:20`]);
      expect(await total(apps, 'cds_function_calls_total', { name: 'schedule:stuck', outcome: 'timed_out' })).toBe(1);
    }, 30_000);
  });
}
