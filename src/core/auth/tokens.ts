/**
 * Access tokens (HS256 JWTs any JWT library can verify, §1) and opaque refresh tokens, which
 * are stored only as SHA-256 hashes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { type SignedToken, signToken, verifyToken } from './jwt.js';

const TOKEN_TYPE = 'access';
/** The extra claim naming the user's token epoch (beside `sub, pid, typ, iat, exp`). */
const EPOCH_CLAIM = 'epoch';

/** The claims of an access token, as verified. */
export interface AccessClaims {
  projectId: number;
  userId: number;
  /** The user's token epoch when it was issued (`User.tokenEpoch`); 0 for tokens without the claim. */
  epoch: number;
  /** Expiry in seconds since the epoch. */
  exp: number;
}

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
  sign(projectId: number, userId: number, epoch: number): Promise<SignedToken> {
    return signToken(this.secret, userId, { pid: projectId, typ: TOKEN_TYPE, [EPOCH_CLAIM]: epoch }, this.ttlSeconds);
  }

  /** The claims of a valid, unexpired access token; null for anything else. */
  async verify(token: string): Promise<AccessClaims | null> {
    const now = Date.now();
    const cached = this.verified.get(token);
    if (cached) return cached.exp * 1000 > now ? cached : null;
    const payload = await verifyToken(this.secret, token, TOKEN_TYPE);
    if (!payload) return null;
    const { pid, subjectId, exp } = payload;
    const epoch = payload[EPOCH_CLAIM] ?? 0;
    if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid < 1) return null;
    if (typeof epoch !== 'number' || !Number.isSafeInteger(epoch) || epoch < 0) return null;
    const claims: AccessClaims = { projectId: pid, userId: subjectId, epoch, exp };
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
