/** The daily reward (functions/daily-reward.ts) against the service in memory, as an operator tests it. */
import { HttpError } from 'client-data-service/functions';
import { type FunctionsTestService, startFunctionsTestService } from 'client-data-service/functions/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import dailyReward from '../functions/daily-reward.js';

const DAY = 86_400_000;
/** The service's clock, moved by the tests: 2025-03-14, 23:00 UTC. */
let now = Date.UTC(2025, 2, 14, 23);

describe('daily reward', () => {
  let service: FunctionsTestService;
  beforeAll(async () => {
    service = await startFunctionsTestService({ modules: [dailyReward], now: () => now });
  });
  afterAll(() => service.close());

  it('gives 10 coins once per UTC day', async () => {
    expect(await service.call('claimDaily')).toEqual({ coins: 10, day: '2025-03-14' });
    const again = service.call('claimDaily');
    await expect(again).rejects.toBeInstanceOf(HttpError);
    await expect(again).rejects.toMatchObject({ status: 409, detail: 'Already claimed today' });

    now += 2 * 60 * 60 * 1000; // 01:00 the next day
    expect(await service.call('claimDaily')).toEqual({ coins: 20, day: '2025-03-15' });
    expect((await service.admin.documents.get(`wallets/u${service.player.user_id}`))?.data).toEqual({
      coins: 20,
      claimed_day: '2025-03-15',
    });
  });

  it('keeps what else the wallet holds, and each player has their own', async () => {
    const other = await service.signup('other');
    await service.admin.documents.put(`wallets/u${other.user_id}`, { data: { coins: 5, gems: 3 } });
    expect(await service.call('claimDaily', null, { as: other })).toMatchObject({ coins: 15 });
    expect((await service.admin.documents.get(`wallets/u${other.user_id}`))?.data).toMatchObject({ gems: 3 });
  });

  it('gives one reward when a player claims twice at once', async () => {
    now += DAY;
    const claims = await Promise.allSettled([service.call('claimDaily'), service.call('claimDaily')]);
    expect(claims.map((claim) => claim.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await service.admin.documents.get(`wallets/u${service.player.user_id}`))?.data.coins).toBe(30);
  });

  it('refuses a game server: there is no player to reward', async () => {
    await expect(service.call('claimDaily', null, { as: 'server' })).rejects.toMatchObject({
      status: 403,
      detail: 'Players only',
    });
  });
});
