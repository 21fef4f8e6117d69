/**
 * Season rewards: when a leaderboard's period ends (on its schedule, or by the admin's reset now),
 * the top 10 of its final standings get coins in their wallet (`wallets/u<user id>`): 500 for the
 * first, 300 for the second, 200 for the third, 50 for the others. An after handler of
 * `leaderboards.reset`, reading the archived standings through `ctx.admin.leaderboards.history`.
 *
 * After handlers run at least once: a handler that failed half-way (or an instance that died in
 * it) runs again on the same event. Each wallet therefore records the periods it was paid for,
 * in the same conditional write as the coins, and a period already there is skipped.
 */
import { defineFunctions, type FunctionContext, HttpError } from 'client-data-service/functions';

/** Coins by final rank (index 0: rank 1); ranks past the table get nothing. */
export const SEASON_COINS = [500, 300, 200, 50, 50, 50, 50, 50, 50, 50];

interface ResetEvent {
  slug: string;
  period: { start: string; end: string };
}

/** Adds `coins` to a wallet once for `season` (a board and period); false when it had been paid already. */
async function payOnce(ctx: FunctionContext, userId: number, season: string, coins: number): Promise<boolean> {
  const path = `wallets/u${userId}`;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const wallet = await ctx.admin.documents.get(path);
    const paid = Array.isArray(wallet?.data.seasons_paid) ? wallet.data.seasons_paid : [];
    if (paid.includes(season)) return false;
    // The season joins the list in the write that adds the coins; `if_match` makes that write
    // fail (412) when the wallet changed since it was read, and the loop reads it again.
    const write = { data: { seasons_paid: [...paid, season] }, transforms: { coins: { increment: coins } } };
    try {
      if (wallet) await ctx.admin.documents.patch(path, { ...write, if_match: wallet.version });
      else await ctx.admin.documents.put(path, write);
      return true;
    } catch (error) {
      if (!(error instanceof HttpError && error.status === 412)) throw error;
    }
  }
  // A throw: the service runs the handler again later, with this event.
  throw new Error(`wallet ${path} kept changing`);
}

export default defineFunctions({
  projects: '*',
  after: {
    'leaderboards.reset': async (ctx, event) => {
      const { slug, period } = event.data as ResetEvent;
      const season = `${slug}@${period.start}`;
      const final = await ctx.admin.leaderboards.history(slug, { period: period.start, limit: SEASON_COINS.length });
      for (const standing of final.standings) {
        const coins = SEASON_COINS[standing.rank - 1];
        if (coins === undefined) continue;
        if (await payOnce(ctx, standing.user_id, season, coins)) {
          ctx.log.info('season reward paid', { season, user_id: standing.user_id, rank: standing.rank, coins });
        }
      }
    },
  },
});
