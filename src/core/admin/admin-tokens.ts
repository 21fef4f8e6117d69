/**
 * Admin access tokens (§6): HS256 JWTs signed with the same key as client tokens, told apart by
 * `typ: "admin"`, so neither kind is accepted where the other belongs.
 */
import { type SignedToken, signToken, verifyToken } from '../auth/jwt.js';

/** The `typ` claim of admin tokens; client access tokens carry `access`. */
export const ADMIN_TOKEN_TYPE = 'admin';

/** Signs and verifies admin tokens. */
export class AdminTokens {
  constructor(
    private readonly secret: Uint8Array,
    private readonly ttlSeconds: number,
  ) {}

  /** Signs a token naming the admin, valid for the configured lifetime. */
  sign(adminId: number): Promise<SignedToken> {
    return signToken(this.secret, adminId, { typ: ADMIN_TOKEN_TYPE }, this.ttlSeconds);
  }

  /** The admin id of a valid, unexpired admin token; null for anything else (client tokens included). */
  async verify(token: string): Promise<number | null> {
    return (await verifyToken(this.secret, token, ADMIN_TOKEN_TYPE))?.subjectId ?? null;
  }
}
