/**
 * Password hashing with scrypt (node:crypto). A hash is stored as one string that names its own
 * parameters, `scrypt$<N>$<r>$<p>$<salt>$<key>` (salt and key base64url), so the cost can be
 * raised later without invalidating existing hashes.
 */
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/** The scrypt cost of new hashes. */
export interface ScryptParams {
  /** CPU/memory cost, a power of two. */
  N: number;
  r: number;
  p: number;
}

/** 32 MiB and about 75 ms per hash on one core: costly to brute-force, still quick to log in. */
export const DEFAULT_SCRYPT_PARAMS: ScryptParams = { N: 2 ** 15, r: 8, p: 1 };

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const PREFIX = 'scrypt';
// Bounds for parameters read back from a stored hash, so a corrupt row cannot exhaust memory.
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;

function deriveKey(password: string, salt: Buffer, params: ScryptParams, keyLength: number): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** Hashes a password with a fresh random salt. */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await deriveKey(password, salt, params, KEY_LENGTH);
  return [PREFIX, params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

interface ParsedHash {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

function parseHash(encoded: string): ParsedHash | null {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== PREFIX) return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const powerOfTwo = Number.isInteger(N) && N > 1 && (N & (N - 1)) === 0;
  if (!powerOfTwo || N > MAX_N || !Number.isInteger(r) || r < 1 || r > MAX_R) return null;
  if (!Number.isInteger(p) || p < 1 || p > MAX_P) return null;
  const salt = Buffer.from(parts[4] ?? '', 'base64url');
  const key = Buffer.from(parts[5] ?? '', 'base64url');
  if (salt.length === 0 || key.length < 16) return null;
  return { params: { N, r, p }, salt, key };
}

/** True when `password` matches the stored hash; compares in constant time. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = parseHash(encoded);
  if (!parsed) return false;
  const key = await deriveKey(password, parsed.salt, parsed.params, parsed.key.length);
  return timingSafeEqual(key, parsed.key);
}

/**
 * Hashes of random passwords, one per cost, to verify against when a login names no usable
 * account, so that case costs the same scrypt work as a wrong password.
 */
const dummyHashes = new Map<string, Promise<string>>();

/** A hash nobody knows the password of, with the given cost (computed once per cost). */
export function dummyHash(params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<string> {
  const key = `${params.N}:${params.r}:${params.p}`;
  let hash = dummyHashes.get(key);
  if (!hash) {
    hash = hashPassword(randomBytes(32).toString('base64url'), params);
    dummyHashes.set(key, hash);
  }
  return hash;
}
