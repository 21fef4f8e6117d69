/**
 * Admin access tokens (§6): HS256 JWTs signed with the same key as client tokens, told apart by
 * `typ: "admin"`, so neither kind is accepted where the other belongs.
 */
import { jwtVerify, SignJWT } from 'jose';

/** A freshly signed admin token. */
export interface SignedAdminToken {
  token: string;
  expiresIn: number;
}

const ALGORITHM = 'HS256';
/** The `typ` claim of admin tokens; client access tokens carry `access`. */
export const ADMIN_TOKEN_TYPE = 'admin';
const ADMIN_ID = /^[1-9][0-9]{0,15}$/;

/** Signs and verifies admin tokens. */
export class AdminTokens {
  constructor(
    private readonly secret: Uint8Array,
    private readonly ttlSeconds: number,
  ) {}

  /** Signs a token naming the admin, valid for the configured lifetime. */
  async sign(adminId: number): Promise<SignedAdminToken> {
    const iat = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ typ: ADMIN_TOKEN_TYPE })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(String(adminId))
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .sign(this.secret);
    return { token, expiresIn: this.ttlSeconds };
  }

  /** The admin id of a valid, unexpired admin token; null for anything else (client tokens included). */
  async verify(token: string): Promise<number | null> {
    try {
      const { payload } = await jwtVerify(token, this.secret, { algorithms: [ALGORITHM] });
      if (payload.typ !== ADMIN_TOKEN_TYPE || typeof payload.sub !== 'string' || !ADMIN_ID.test(payload.sub)) {
        return null;
      }
      if (typeof payload.exp !== 'number') return null;
      return Number(payload.sub);
    } catch {
      return null;
    }
  }
}
