import { CdsError } from './errors.js';
import type { SessionStorage } from './storage.js';
import type { AuthResponse, AuthUser } from './types.js';

/** What is kept in storage: the tokens, when to refresh the access token (ms since epoch, a margin before it expires), the user. */
export interface StoredSession {
  access_token: string;
  refresh_token: string;
  refresh_at: number;
  user: AuthUser;
}

/** Refresh this long before the access token expires (or at half its life when that is shorter). */
const REFRESH_MARGIN_MS = 60_000;

/** The signed-in session: loaded from storage, refreshed before expiry and on demand, one refresh at a time. */
export class Session {
  private current: StoredSession | null = null;
  private refreshing: Promise<string> | null = null;
  private readonly listeners = new Set<(token: string | null, sameUser: boolean) => void>();
  readonly ready: Promise<void>;

  constructor(
    private readonly storage: SessionStorage,
    private readonly key: string,
    private readonly exchange: (refreshToken: string) => Promise<AuthResponse>,
  ) {
    this.ready = Promise.resolve(storage.getItem(key)).then(
      (raw) => {
        this.current = parse(raw);
      },
      () => {
        this.current = null;
      },
    );
  }

  /** Calls `listener` with each new access token (null on sign-out) and whether the user stayed the same. */
  onChange(listener: (token: string | null, sameUser: boolean) => void): void {
    this.listeners.add(listener);
  }

  /** The access token held now (no refresh), or null. */
  currentToken(): string | null {
    return this.current?.access_token ?? null;
  }

  /** The refresh token held now, or null. */
  refreshToken(): string | null {
    return this.current?.refresh_token ?? null;
  }

  /** When the access token is due for a refresh (ms since epoch), or null when signed out. */
  refreshAt(): number | null {
    return this.current?.refresh_at ?? null;
  }

  /** The signed-in user, or null. */
  async user(): Promise<AuthUser | null> {
    await this.ready;
    return this.current?.user ?? null;
  }

  async set(response: AuthResponse): Promise<AuthUser> {
    await this.ready;
    const lifetimeMs = response.expires_in * 1000;
    const sameUser = this.current?.user.id === response.user.id;
    this.current = {
      access_token: response.access_token,
      refresh_token: response.refresh_token,
      refresh_at: Date.now() + lifetimeMs - Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2),
      user: response.user,
    };
    await this.storage.setItem(this.key, JSON.stringify(this.current));
    for (const listener of this.listeners) listener(response.access_token, sameUser);
    return response.user;
  }

  async setUser(user: AuthUser): Promise<void> {
    if (!this.current) return;
    this.current = { ...this.current, user };
    await this.storage.setItem(this.key, JSON.stringify(this.current));
  }

  async clear(): Promise<void> {
    await this.ready;
    this.current = null;
    await this.storage.removeItem(this.key);
    for (const listener of this.listeners) listener(null, false);
  }

  /** A valid access token, refreshed first when it is about to expire; `unauthenticated` when signed out. */
  async accessToken(): Promise<string> {
    await this.ready;
    const session = this.current;
    if (!session) throw new CdsError(401, 'Not signed in', 'unauthenticated');
    if (Date.now() < session.refresh_at) return session.access_token;
    return this.refresh(session.access_token);
  }

  /**
   * A new access token because `stale` was rejected or is expiring. Concurrent callers share one
   * `/auth/refresh` (refresh tokens rotate, so a second one would fail); a caller whose token was
   * already replaced gets the new one without another refresh.
   */
  async refresh(stale: string): Promise<string> {
    await this.ready;
    const session = this.current;
    if (!session) throw new CdsError(401, 'Not signed in', 'unauthenticated');
    if (session.access_token !== stale && Date.now() < session.refresh_at) return session.access_token;
    if (!this.refreshing) {
      this.refreshing = this.exchange(session.refresh_token)
        .then(async (response) => {
          await this.set(response);
          return response.access_token;
        })
        .catch(async (error: unknown) => {
          if (error instanceof CdsError && error.code === 'unauthenticated') await this.clear();
          throw error;
        })
        .finally(() => {
          this.refreshing = null;
        });
    }
    return this.refreshing;
  }
}

function parse(raw: string | null): StoredSession | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<StoredSession>;
    if (typeof value.access_token !== 'string' || typeof value.refresh_token !== 'string' || !value.user) return null;
    return value as StoredSession;
  } catch {
    return null;
  }
}
