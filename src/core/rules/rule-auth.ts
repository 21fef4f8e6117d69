import { LRUCache } from 'lru-cache';
import type { AccountStore } from '../auth/account-store.js';
import { AppError } from '../errors.js';
import type { RuleAuth } from './compiled-ruleset.js';

/**
 * `request.auth` of the rules (§9) for a signed-in user: id, username and current roles, read
 * from the accounts and remembered for 2.5 s: with the sockets' 2.5 s grant review, a role change
 * reaches open subscriptions within the 5 s of §9.
 */
export class RuleAuthLookup {
  private readonly cache: LRUCache<string, RuleAuth>;

  constructor(
    private readonly accounts: Pick<AccountStore, 'findUserById'>,
    ttlMs = 2500,
  ) {
    this.cache = new LRUCache({ max: 100_000, ttl: ttlMs });
  }

  /** The user's `request.auth`; a user that no longer exists is `invalid_token` (401). */
  async of(projectId: number, userId: number): Promise<RuleAuth> {
    const key = `${projectId}:${userId}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const user = await this.accounts.findUserById(projectId, userId);
    if (!user) throw new AppError('invalid_token', 'Invalid or expired token');
    const auth: RuleAuth = { uid: String(user.id), username: user.username, roles: user.roles };
    this.cache.set(key, auth);
    return auth;
  }

  /** The user's `request.auth` when it is remembered (no database read, no promise). */
  cached(projectId: number, userId: number): RuleAuth | undefined {
    return this.cache.get(`${projectId}:${userId}`);
  }

  /** Forgets a user's entry (after a role change made here), or every entry. */
  forget(projectId?: number, userId?: number): void {
    if (projectId !== undefined && userId !== undefined) this.cache.delete(`${projectId}:${userId}`);
    else this.cache.clear();
  }
}
