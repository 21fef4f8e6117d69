/**
 * Server keys (§9): long-lived credentials of game servers, each bound to one project with the
 * permissions of an admin role (`editor` or `viewer`). A key is `sk_` and 256 random bits,
 * shown once at creation; only its SHA-256 is stored.
 */
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { sha256Hex } from '../auth/tokens.js';
import { AppError, notFound } from '../errors.js';
import { isoTime } from '../leaderboards/period-schedule.js';
import type { AdminCaller } from './admin-caller.js';
import type { ServerKey, ServerKeyGrant, ServerKeyRole, ServerKeyStore } from './admin-store.js';

/** Every server key starts with this, which tells it from an admin token. */
export const SERVER_KEY_PREFIX = 'sk_';

/** The roles a server key may hold. */
export const SERVER_KEY_ROLES: readonly ServerKeyRole[] = ['editor', 'viewer'];

/** A server key as listings show it: never the key itself. */
export interface ServerKeyView {
  id: number;
  name: string;
  role: ServerKeyRole;
  created_at: string;
}

/** A server key as its creation answers it: the key is shown this once. */
export interface IssuedServerKey extends ServerKeyView {
  key: string;
}

/** Settings of the server key service. */
export interface ServerKeyOptions {
  /**
   * How long a key lookup (found or not) is remembered. Instances share the database, not this
   * cache, so a revocation reaches every instance within this time; §9 allows 5 s.
   */
  cacheMs?: number;
}

const KEY_NOT_FOUND = 'Server key not found';
/**
 * What issuing and revoking keys takes: an owner or editor admin. Kept out of the role table,
 * whose `editor` row is exactly §6's four permissions, and never held by a key itself, so a
 * leaked key cannot mint another that outlives its revocation.
 */
const MANAGE_PERMISSION = 'server_key.manage';

/** True when a bearer credential has the shape of a server key (rather than an admin token). */
export function looksLikeServerKey(credential: string): boolean {
  return credential.startsWith(SERVER_KEY_PREFIX);
}

function serverKeyView(key: ServerKey): ServerKeyView {
  return { id: key.id, name: key.name, role: key.role, created_at: isoTime(key.createdAt) };
}

/** Creates, lists, revokes and recognises server keys. */
export class ServerKeyService {
  private readonly lookups: LRUCache<string, { grant: ServerKeyGrant | null }>;

  constructor(
    private readonly store: ServerKeyStore,
    options: ServerKeyOptions = {},
  ) {
    this.lookups = new LRUCache({ max: 10_000, ttl: options.cacheMs ?? 4000 });
  }

  /** Throws 403 unless the caller may issue and revoke keys: an owner or editor admin, not a key. */
  requireManager(caller: AdminCaller): void {
    if (caller.kind !== 'admin' || caller.role === 'viewer') {
      throw new AppError('forbidden', `Permission '${MANAGE_PERMISSION}' required`);
    }
  }

  /** Issues a key of the project with that role; the answer is the only place the key appears. */
  async create(projectId: number, input: { name: string; role: ServerKeyRole }): Promise<IssuedServerKey> {
    const key = `${SERVER_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
    const stored = await this.store.create(projectId, input.name, input.role, sha256Hex(key));
    return { ...serverKeyView(stored), key };
  }

  /** The project's live keys, by id. */
  async list(projectId: number): Promise<{ server_keys: ServerKeyView[] }> {
    return { server_keys: (await this.store.list(projectId)).map(serverKeyView) };
  }

  /** Revokes a key of the project: refused here at once, elsewhere within the cache time; 404 otherwise. */
  async revoke(projectId: number, keyId: number): Promise<{ deleted: number }> {
    if (!(await this.store.revoke(projectId, keyId))) throw notFound(KEY_NOT_FOUND);
    for (const [hash, cached] of this.lookups.entries()) {
      if (cached.grant?.id === keyId) this.lookups.delete(hash);
    }
    return { deleted: keyId };
  }

  /**
   * The live key a credential is, or null. Keys are found by their SHA-256 (an index lookup), so
   * there is no stored secret to compare: the timing of a lookup can reveal at most something of
   * the hash of a 256-bit random key, which does not help to guess one.
   */
  async authenticate(credential: string): Promise<ServerKeyGrant | null> {
    if (!looksLikeServerKey(credential)) return null;
    const hash = sha256Hex(credential);
    const cached = this.lookups.get(hash);
    if (cached) return cached.grant;
    const grant = await this.store.findByHash(hash);
    this.lookups.set(hash, { grant });
    return grant;
  }
}
