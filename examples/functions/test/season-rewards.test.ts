/** Season rewards (functions/season-rewards.ts): the top of a board paid when its period ends, once. */
import { type FunctionsTestService, startFunctionsTestService } from 'client-data-service/functions/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import seasonRewards from '../functions/season-rewards.js';

describe('season rewards', () => {
  let service: FunctionsTestService;
  const coinsOf = async (userId: number) => (await service.admin.documents.get(`wallets/u${userId}`))?.data.coins;

  beforeAll(async () => {
    service = await startFunctionsTestService({ modules: [seasonRewards] });
    await service.leaderboards.create('weekly', { reset: 'weekly' });
  });
  afterAll(() => service.close());

  it('pays the final top of the board by rank when its period ends, and each wallet once', async () => {
    const players = [service.player];
    for (const name of ['anna', 'bob', 'cyrus']) players.push(await service.signup(name));
    // Scores 10, 40, 30, 20: ranks player 4th, anna 1st, bob 2nd, cyrus 3rd.
    for (const [i, player] of players.entries()) {
      await service.leaderboards.submit('weekly', [10, 40, 30, 20][i] as number, { as: player });
    }
    await service.admin.documents.put(`wallets/u${players[2]?.user_id}`, { data: { coins: 7, gems: 1 } });

    await service.leaderboards.reset('weekly');
    await service.afterHandlers();

    expect(await coinsOf(players[1]?.user_id as number)).toBe(500);
    expect(await coinsOf(players[2]?.user_id as number)).toBe(307);
    expect(await coinsOf(players[3]?.user_id as number)).toBe(200);
    expect(await coinsOf(service.player.user_id)).toBe(50);
    const bob = await service.admin.documents.get(`wallets/u${players[2]?.user_id}`);
    expect(bob?.data.gems).toBe(1);
    expect(bob?.data.seasons_paid).toHaveLength(1);
  });

  it('pays nothing for a period without standings, and never twice for one period', async () => {
    // The new period has no stats yet: its reset archives nothing to pay.
    await service.leaderboards.reset('weekly');
    await service.afterHandlers();
    expect(await coinsOf(service.player.user_id)).toBe(50);

    // At least once: the same event handled again (as after a crash) pays nothing more.
    const handler = seasonRewards.after?.['leaderboards.reset'];
    const wallet = await service.admin.documents.get(`wallets/u${service.player.user_id}`);
    const [season] = (wallet?.data.seasons_paid ?? []) as string[];
    const start = season?.split('@')[1] as string;
    const ctx = {
      project_id: service.project_id,
      caller: null,
      request_id: 'replay',
      log: { info() {}, warn() {}, error() {} },
      now: () => Date.now(),
      admin: service.admin,
    };
    await handler?.(ctx, {
      id: 'replay',
      type: 'leaderboards.reset',
      project_id: service.project_id,
      timestamp: new Date().toISOString(),
      data: { slug: 'weekly', period: { start, end: start } },
    });
    expect(await coinsOf(service.player.user_id)).toBe(50);
  });
});
