/**
 * Access tokens (HS256 JWTs any JWT library can verify, §1) and opaque refresh tokens, which
 * are stored only as SHA-256 hashes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';

/** The claims of an access token, as verified. */
export interface AccessClaims {
  projectId: number;
  userId: number;
  /** The user's token epoch when it was issued (`User.tokenEpoch`); 0 for tokens without the claim. */
  epoch: number;
  /** Expiry in seconds since the epoch. */
  exp: number;
}

/** A freshly signed access token. */
export interface SignedAccessToken {
  token: string;
  expiresIn: number;
}

const ALGORITHM = 'HS256';
const TOKEN_TYPE = 'access';
const USER_ID = /^[1-9][0-9]{0,15}$/;
/** The extra claim naming the user's token epoch (beside `sub, pid, typ, iat, exp`). */
const EPOCH_CLAIM = 'epoch';

/** Signs and verifies the access tokens of client users. */
export class AccessTokens {
  // Verifying an HMAC is cheap, but every data request does it; a token's claims cannot change
  // before it expires, so a verified token is remembered until then.
  private readonly verified: LRUCache<string, AccessClaims>;

  constructor(
    private readonly secret: Uint8Array,
    private readonly ttlSeconds: number,
    cacheSize = 10_000,
  ) {
    this.verified = new LRUCache({ max: cacheSize });
  }

  /** Signs a token for the user of a project under their current token epoch, valid for the configured lifetime. */
  async sign(projectId: number, userId: number, epoch: number): Promise<SignedAccessToken> {
    const iat = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ pid: projectId, typ: TOKEN_TYPE, [EPOCH_CLAIM]: epoch })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(String(userId))
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .sign(this.secret);
    return { token, expiresIn: this.ttlSeconds };
  }

  /** The claims of a valid, unexpired access token; null for anything else. */
  async verify(token: string): Promise<AccessClaims | null> {
    const now = Date.now();
    const cached = this.verified.get(token);
    if (cached) return cached.exp * 1000 > now ? cached : null;
    let claims: AccessClaims;
    try {
      const { payload } = await jwtVerify(token, this.secret, { algorithms: [ALGORITHM] });
      const { sub, pid, typ, exp } = payload;
      const epoch = payload[EPOCH_CLAIM] ?? 0;
      if (typ !== TOKEN_TYPE || typeof sub !== 'string' || !USER_ID.test(sub)) return null;
      if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid < 1 || typeof exp !== 'number') return null;
      if (typeof epoch !== 'number' || !Number.isSafeInteger(epoch) || epoch < 0) return null;
      claims = { projectId: pid, userId: Number(sub), epoch, exp };
    } catch {
      return null;
    }
    const ttl = claims.exp * 1000 - now;
    if (ttl > 0) this.verified.set(token, claims, { ttl });
    return claims;
  }
}

/** A new opaque refresh token: 256 random bits. */
export function newRefreshToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The SHA-256 (hex) under which a token or secret is stored; high-entropy inputs need no salt. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
