import type { Http } from './http.js';
import type { Session } from './session.js';
import { randomId, type SessionStorage } from './storage.js';
import type { AuthResponse, AuthUser, LogInInput, Me, ProfileInput, SignUpInput } from './types.js';

/** `client.auth` (§12): sign-up, log-in, guest accounts and the profile. */
export class Auth {
  constructor(
    private readonly http: Http,
    private readonly session: Session,
    private readonly storage: SessionStorage,
    private readonly deviceKey: string,
    private readonly signedOut: () => void = () => {},
  ) {}

  async signUp(input: SignUpInput): Promise<AuthUser> {
    return this.session.set(
      await this.http.request<AuthResponse>('POST', '/auth/signup', { body: input, auth: false }),
    );
  }

  async logIn(input: LogInInput): Promise<AuthUser> {
    return this.session.set(await this.http.request<AuthResponse>('POST', '/auth/login', { body: input, auth: false }));
  }

  /** Signs in as the guest of `deviceId`; without one, a random id kept in storage (the same guest next time). */
  async guest(deviceId?: string): Promise<AuthUser> {
    let device = deviceId ?? (await this.storage.getItem(this.deviceKey));
    if (!device) {
      device = randomId();
      await this.storage.setItem(this.deviceKey, device);
    }
    const body = { device_id: device };
    return this.session.set(await this.http.request<AuthResponse>('POST', '/auth/guest', { body, auth: false }));
  }

  /** The signed-in user as last known (no request), or null. */
  currentUser(): Promise<AuthUser | null> {
    return this.session.user();
  }

  me(): Promise<Me> {
    return this.http.request<Me>('GET', '/auth/me');
  }

  async updateProfile(input: ProfileInput): Promise<Me> {
    const me = await this.http.request<Me>('PATCH', '/auth/me', { body: input });
    await this.session.setUser({ id: me.id, username: me.username, nickname: me.nickname, avatar_url: me.avatar_url });
    return me;
  }

  /**
   * Revokes the refresh token (§14 `POST /auth/logout`), removes the session from storage and
   * closes the socket (subscriptions end; pending realtime writes fail with `unauthenticated`).
   * The session is forgotten locally even when the revocation request fails (which then rejects).
   */
  async logOut(): Promise<void> {
    const refreshToken = this.session.refreshToken();
    try {
      if (refreshToken)
        await this.http.request('POST', '/auth/logout', { body: { refresh_token: refreshToken }, auth: false });
    } finally {
      await this.session.clear();
      this.signedOut();
    }
  }
}
