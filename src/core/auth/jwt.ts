/**
 * The service's HS256 JWTs, access tokens (§1) and admin tokens (§6) alike: signed with one key,
 * `sub` naming an id, `typ` the kind of token, so that neither kind is accepted for the other.
 */
import { type JWTPayload, jwtVerify, SignJWT } from 'jose';

const ALGORITHM = 'HS256';
const ID = /^[1-9][0-9]{0,15}$/;

/** A freshly signed token. */
export interface SignedToken {
  token: string;
  expiresIn: number;
}

/** A verified token's payload, with its subject's id and its expiry (seconds since the epoch). */
export type VerifiedPayload = JWTPayload & { subjectId: number; exp: number };

/** Signs a token of `claims` (its `typ` among them) for the id `subject`, valid for `ttlSeconds` from now. */
export async function signToken(
  secret: Uint8Array,
  subject: number,
  claims: JWTPayload,
  ttlSeconds: number,
): Promise<SignedToken> {
  const iat = Math.floor(Date.now() / 1000);
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(String(subject))
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(secret);
  return { token, expiresIn: ttlSeconds };
}

/** The payload of a valid, unexpired token of type `typ` whose `sub` is an id; null for anything else. */
export async function verifyToken(secret: Uint8Array, token: string, typ: string): Promise<VerifiedPayload | null> {
  try {
    const { payload } = await jwtVerify(token, secret, { algorithms: [ALGORITHM] });
    const { sub, exp } = payload;
    if (payload.typ !== typ || typeof sub !== 'string' || !ID.test(sub) || typeof exp !== 'number') return null;
    return { ...payload, subjectId: Number(sub), exp };
  } catch {
    return null;
  }
}
