/**
 * The access token a WebSocket runs on (§14): the last one accepted, at the handshake or by an
 * `auth` message. The socket is closed with 4001 once it expires — never before its `exp`.
 */

/** Close code and reason of a socket whose token expired; clients refresh and reconnect with `since`. */
export const TOKEN_EXPIRED_CODE = 4001;
export const TOKEN_EXPIRED_REASON = 'Token expired';

// setTimeout takes at most a signed 32-bit delay; a longer token lifetime re-arms on the way.
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** What a socket's token grants; only its expiry matters here (a client grant, an admin caller, §13). */
export interface ExpiringGrant {
  /** When the token expires, in milliseconds since the epoch; Infinity for a credential that does not (a server key). */
  expiresAtMs: number;
}

export class SessionToken<G extends ExpiringGrant> {
  private timer: NodeJS.Timeout | null = null;
  private grant: G;

  /** `onExpired` is called once the current token's `exp` has passed. */
  constructor(
    grant: G,
    private readonly onExpired: () => void,
  ) {
    this.grant = grant;
    this.arm();
  }

  /** What the current token grants (re-checked periodically by the gateway). */
  get current(): G {
    return this.grant;
  }

  /** Runs the socket on a newer token of the same caller from now on. */
  replace(grant: G): void {
    this.grant = grant;
    this.arm();
  }

  /** Stops watching (the socket closed). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    this.stop();
    if (!Number.isFinite(this.grant.expiresAtMs)) return;
    const remaining = this.grant.expiresAtMs - Date.now();
    // A timer may fire a millisecond early: the expiry is checked against the clock, not assumed.
    this.timer = setTimeout(
      () => (this.grant.expiresAtMs <= Date.now() ? this.onExpired() : this.arm()),
      Math.min(Math.max(remaining, 0), LONGEST_TIMER_MS),
    );
    this.timer.unref();
  }
}
