/**
 * `client-data-service/functions/testing` (§16): an operator's modules against the service in
 * memory. Each client helper runs its before hook; RPCs as a player or a server key; a refusal
 * is the `HttpError` a client gets, a function's throw its `cause`; `admin` writes run no hook;
 * a module a start would refuse is refused; `close` removes the data; `runSchedules` runs the
 * ticks that came due on the test's clock.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineFunctions, HttpError, reject } from '../../src/functions/index.js';
import { type FunctionsTestService, startFunctionsTestService } from '../../src/functions/testing.js';

const game = defineFunctions({
  projects: '*',
  rpc: {
    whoami: (ctx, input) => ({ caller: ctx.caller, input, now: ctx.now() }),
    crash: () => {
      throw new Error('wallet internals');
    },
  },
  before: {
    'documents.write': (_ctx, write) => (write.path === 'locked/a' ? reject(423, 'Locked') : undefined),
    'realtime.write': (_ctx, write) => (write.path === 'rooms/r1' ? { hooked: write.value } : undefined),
    'leaderboards.stat': (_ctx, stat) => stat.value * 2,
    'auth.signup': (_ctx, signup) => ({ nickname: signup.nickname.toUpperCase() }),
  },
});

describe('the functions test service', () => {
  let service: FunctionsTestService;
  beforeAll(async () => {
    service = await startFunctionsTestService({ modules: [game], now: () => 1_700_000_000_000 });
  });
  afterAll(() => service.close());

  it('calls RPCs as the player, another player or a server key, on the given clock', async () => {
    const { player } = service;
    expect(await service.call('whoami', { a: 1 })).toEqual({
      caller: { user_id: player.user_id, roles: ['player'] },
      input: { a: 1 },
      now: 1_700_000_000_000,
    });
    expect(await service.call('whoami', null, { as: 'server' })).toMatchObject({ caller: { server_key: 1 } });
    const other = await service.signup('other', { nickname: 'quiet' });
    expect(other.nickname).toBe('QUIET');
    expect(await service.call('whoami', null, { as: other })).toMatchObject({ caller: { user_id: other.user_id } });
  });

  it('throws what a client gets, with a failed function’s error as the cause', async () => {
    const missing = await service.call('nope').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(HttpError);
    expect(missing).toMatchObject({ status: 404, detail: 'Function not found' });
    const failed = await service.call('crash').catch((error: unknown) => error);
    expect(failed).toMatchObject({ status: 500, detail: 'Function failed', cause: { message: 'wallet internals' } });
  });

  it('runs each before hook on the client helpers, and none on admin writes', async () => {
    await expect(service.documents.put('locked/a', { x: 1 })).rejects.toMatchObject({ status: 423, detail: 'Locked' });
    expect((await service.admin.documents.put('locked/a', { data: { x: 1 } })).data).toEqual({ x: 1 });
    expect(await service.documents.patch('open/b', { x: 2 }).catch((error: HttpError) => error.status)).toBe(404);
    expect((await service.documents.put('open/b', { x: 1 }, { transforms: { n: { increment: 2 } } })).data).toEqual({
      x: 1,
      n: 2,
    });
    expect(await service.documents.delete('open/b')).toEqual({ deleted: 'open/b' });
    expect(await service.realtime.set('rooms/r1', 5)).toEqual({ path: 'rooms/r1', value: { hooked: 5 } });
    expect(await service.admin.realtime.get('rooms/r1')).toEqual({ hooked: 5 });
    await service.leaderboards.create('score');
    expect(await service.leaderboards.submit('score', 21)).toMatchObject({ stat_value: 42 });
  });

  it('refuses a module a start would refuse, and removes its data when closed', async () => {
    await expect(startFunctionsTestService({ modules: [{ projects: '*' }] })).rejects.toThrow(
      'module 1: its default export is not defineFunctions({...})',
    );
    // Its data goes to a temporary folder of its own, removed by close.
    const parent = mkdtempSync(join(tmpdir(), 'cds-functions-testing-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = parent;
    try {
      const other = await startFunctionsTestService({ modules: [] });
      expect(readdirSync(parent)).toHaveLength(1);
      await other.close();
      expect(readdirSync(parent)).toEqual([]);
    } finally {
      // Assigning undefined would store the string 'undefined': every later tmpdir() of this worker would be 'undefined'.
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe('schedules in the functions test service', () => {
  it('runs the ticks that came due on the test’s clock, and none from before the start', async () => {
    let now = Date.UTC(2026, 0, 1, 10, 30);
    const seasons = defineFunctions({
      projects: '*',
      schedule: {
        hourly: {
          cron: '0 * * * *',
          run: async (ctx) => {
            await ctx.admin.documents.put(`ticks/t${ctx.now()}`, { data: { caller: ctx.caller } });
          },
        },
      },
    });
    const service = await startFunctionsTestService({ modules: [seasons], now: () => now });
    try {
      await service.runSchedules();
      expect((await service.admin.documents.query('ticks')).documents).toEqual([]);
      now = Date.UTC(2026, 0, 1, 11, 0, 5);
      await service.runSchedules();
      await service.runSchedules();
      const { documents } = await service.admin.documents.query('ticks');
      expect(documents.map((doc) => [doc.path, doc.data])).toEqual([[`ticks/t${now}`, { caller: null }]]);
    } finally {
      await service.close();
    }
  });
});
