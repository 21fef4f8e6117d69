/**
 * A daily reward: `claimDaily` adds 10 coins to the caller's wallet (`wallets/u<user id>`) once per
 * UTC day; a second claim the same day answers 409. Players cannot write their own coins (give
 * `wallets` a rule that refuses players' writes): only this function, through `ctx.admin`, does.
 */
import { defineFunctions, HttpError, reject } from 'client-data-service/functions';

export const DAILY_COINS = 10;
const DAY_MS = 86_400_000;

export default defineFunctions({
  projects: '*',
  rpc: {
    claimDaily: async (ctx) => {
      if (!ctx.caller || !('user_id' in ctx.caller)) return reject(403, 'Players only');
      const path = `wallets/u${ctx.caller.user_id}`;
      const day = new Date(Math.floor(ctx.now() / DAY_MS) * DAY_MS).toISOString().slice(0, 10); // '2025-03-14'
      // Two claims at once: the write is conditional on the wallet as read, so only one of them
      // commits; the other reads again and finds the day claimed.
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const wallet = await ctx.admin.documents.get(path);
        if (wallet?.data.claimed_day === day) return reject(409, 'Already claimed today');
        // The day is merged into the wallet (its other fields stay) and the coins added by the
        // service (a transform: no lost update when something else changes them meanwhile).
        const write = { data: { claimed_day: day }, transforms: { coins: { increment: DAILY_COINS } } };
        try {
          const written = wallet
            ? await ctx.admin.documents.patch(path, { ...write, if_match: wallet.version })
            : await ctx.admin.documents.put(path, write);
          ctx.log.info('daily reward claimed', { day, coins: written.data.coins });
          return { coins: written.data.coins, day };
        } catch (error) {
          if (!(error instanceof HttpError && error.status === 412)) throw error;
        }
      }
      return reject(409, 'The wallet kept changing; try again');
    },
  },
});
