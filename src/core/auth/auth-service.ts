import { randomBytes, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppError, conflict, notFound, type ValidationIssue, validationFailed } from '../errors.js';
import { type EventRecording, recordOf, recordsNothing } from '../events/event-recording.js';
import { userCreatedEvents } from '../events/outbox-events.js';
import { type HookOrigin, noHooks, unusableReplacement, type WriteHooks } from '../functions/before-hooks.js';
import type { SignupArgument } from '../functions/functions-module.js';
import { isJsonObject } from '../json.js';
import type { AccountStore, User, UserEvents, UserRefusal } from './account-store.js';
import { DEFAULT_SCRYPT_PARAMS, dummyHash, hashPassword, type ScryptParams, verifyPassword } from './passwords.js';
import { PLAYER_ROLE } from './player-role.js';
import { AccessTokens, newRefreshToken, sha256Hex } from './tokens.js';

/** Usernames: 3–64 ASCII letters, digits, `_ . -` (ASCII so case-insensitive uniqueness is the same on both engines). */
export const USERNAME_PATTERN = '^[A-Za-z0-9_.-]{3,64}$';
/** The shortest password accepted (§1). */
export const PASSWORD_MIN_LENGTH = 8;

/** The public profile of a user, as auth responses show it. */
export interface AuthUser {
  id: number;
  username: string;
  nickname: string;
  avatar_url: string | null;
}

/** The §1 `AuthResponse`. */
export interface AuthResponse {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
  user: AuthUser;
}

/** The §1 `/auth/me` body. */
export interface Me extends AuthUser {
  roles: string[];
  permissions: string[];
}

/** Who a valid access token speaks for: its user and the token epoch it was issued under. */
export interface AccessGrant {
  userId: number;
  tokenEpoch: number;
  /** When the token expires, in milliseconds since the epoch (a socket is closed then, §14). */
  expiresAtMs: number;
}

/** Settings of the auth service. */
export interface AuthServiceOptions {
  accounts: AccountStore;
  /** The HS256 key of access tokens (CDS_JWT_SECRET). */
  jwtSecret: Uint8Array;
  accessTokenTtlSeconds?: number;
  refreshTokenTtlSeconds?: number;
  /** How long a user's permissions are remembered; §1 wants role changes live within 10 s. */
  permissionCacheMs?: number;
  /** How long a client's stored secret hash is remembered. */
  clientCacheMs?: number;
  /** The scrypt cost of new password hashes. */
  scrypt?: ScryptParams;
  /** The projects' `auth.signup` before hooks (§16); none by default. */
  hooks?: WriteHooks;
  /** Which projects record their events (`user.created`, §16); none by default. */
  recording?: EventRecording;
}

const INVALID_CLIENT = 'Invalid client credentials';
const INVALID_TOKEN = 'Invalid or expired token';
const INVALID_LOGIN = 'Invalid username or password';
const INVALID_REFRESH = 'Invalid or expired refresh token';
const ACCOUNT_DISABLED = 'Account disabled';
/** A nickname's longest (§1). */
const MAX_NICKNAME = 64;
// Compared against when a client id is unknown, so that case costs the same as a wrong secret.
const NO_SECRET_HASH = Buffer.alloc(32);
const GUEST_NAME_ATTEMPTS = 4;

interface CachedClient {
  projectId: number;
  secretHash: Buffer;
  /**
   * The secret (UTF-8) that last matched `secretHash`: every request of a client sends the same
   * one, and comparing it costs less than hashing it again (about 3 µs a request). It lives only
   * as long as this entry (the cache's TTL, or until `forgetClient`).
   */
  acceptedSecret?: Buffer;
}

/** Whether `secret` is `accepted`, in time that depends only on the lengths. */
function sameSecret(accepted: Buffer, secret: string): boolean {
  const given = Buffer.from(secret, 'utf8');
  return given.length === accepted.length && timingSafeEqual(given, accepted);
}

/** A user's access as last read: null when the user does not exist. */
interface CachedAccess {
  access: { roles: readonly string[]; permissions: ReadonlySet<string>; disabled: boolean; tokenEpoch: number } | null;
}

/** Throws a 422 unless the username and password follow the §1 rules. */
export function checkCredentials(username: string, password: string): void {
  const issues: ValidationIssue[] = [];
  if (!new RegExp(USERNAME_PATTERN).test(username)) {
    issues.push({
      loc: ['body', 'username'],
      msg: 'must be 3 to 64 letters, digits, _ . or -',
      type: 'pattern',
    });
  }
  if ([...password].length < PASSWORD_MIN_LENGTH) {
    issues.push({
      loc: ['body', 'password'],
      msg: `must be at least ${PASSWORD_MIN_LENGTH} characters`,
      type: 'minLength',
    });
  }
  if (issues.length > 0) throw validationFailed(issues);
}

/** The user a store created, or the contract's error for its refusal: 409 for a taken username, 404 for no project. */
export function createdUser(outcome: User | UserRefusal): User {
  if (outcome === 'taken') throw conflict('Username already taken');
  if (outcome === 'missing') throw notFound('Project not found');
  return outcome;
}

/** Converts a stored user to its public profile. */
export function toAuthUser(user: User): AuthUser {
  return { id: user.id, username: user.username, nickname: user.nickname, avatar_url: user.avatarUrl };
}

/**
 * Client credentials, access and refresh tokens, sign-up and login (§1). It satisfies the HTTP
 * layer's `ClientAuthenticator` (the three checks every data route runs, in order).
 */
export class AuthService {
  private readonly accounts: AccountStore;
  private readonly tokens: AccessTokens;
  private readonly refreshTtlMs: number;
  private readonly scrypt: ScryptParams;
  private readonly hooks: WriteHooks;
  private readonly recording: EventRecording;
  private readonly clients: LRUCache<string, CachedClient>;
  private readonly access: LRUCache<string, CachedAccess>;

  constructor(options: AuthServiceOptions) {
    this.accounts = options.accounts;
    this.tokens = new AccessTokens(options.jwtSecret, options.accessTokenTtlSeconds ?? 3600);
    this.refreshTtlMs = (options.refreshTokenTtlSeconds ?? 30 * 24 * 3600) * 1000;
    this.scrypt = options.scrypt ?? DEFAULT_SCRYPT_PARAMS;
    this.hooks = options.hooks ?? noHooks;
    this.recording = options.recording ?? recordsNothing;
    this.clients = new LRUCache({ max: 10_000, ttl: options.clientCacheMs ?? 5000 });
    this.access = new LRUCache({ max: 100_000, ttl: options.permissionCacheMs ?? 5000 });
    // Computed now so the first failed login is not faster than later ones.
    void dummyHash(this.scrypt);
  }

  /** The project of valid client credentials; throws `invalid_client` (401). */
  async authenticateClient(clientId: string | undefined, clientSecret: string | undefined): Promise<number> {
    if (!clientId || !clientSecret) throw new AppError('invalid_client', INVALID_CLIENT);
    let client = this.clients.get(clientId);
    if (!client) {
      const found = await this.accounts.findClient(clientId);
      if (found) {
        client = { projectId: found.projectId, secretHash: Buffer.from(found.secretHash, 'hex') };
        this.clients.set(clientId, client);
      }
    }
    if (client?.acceptedSecret && sameSecret(client.acceptedSecret, clientSecret)) return client.projectId;
    const given = Buffer.from(sha256Hex(clientSecret), 'hex');
    const expected = client?.secretHash.length === given.length ? client.secretHash : NO_SECRET_HASH;
    const matches = timingSafeEqual(given, expected);
    if (!client || expected === NO_SECRET_HASH || !matches) throw new AppError('invalid_client', INVALID_CLIENT);
    client.acceptedSecret = Buffer.from(clientSecret, 'utf8');
    return client.projectId;
  }

  /**
   * The user and epoch of a valid access token issued for that project to a user who still
   * exists, is enabled and has not been disabled since; throws `invalid_token` (401). The user's
   * state comes from the cache `requirePermission` reads, so a disable reaches every instance
   * within its lifetime without a read per request.
   */
  async verifyAccessGrant(token: string | undefined, projectId: number): Promise<AccessGrant> {
    const claims = token ? await this.tokens.verify(token) : null;
    if (!claims || claims.projectId !== projectId) throw new AppError('invalid_token', INVALID_TOKEN);
    await this.currentAccess(projectId, claims.userId, claims.epoch);
    return { userId: claims.userId, tokenEpoch: claims.epoch, expiresAtMs: claims.exp * 1000 };
  }

  /** The user of a valid access token (see `verifyAccessGrant`); throws `invalid_token` (401). */
  async verifyAccessToken(token: string | undefined, projectId: number): Promise<number> {
    return (await this.verifyAccessGrant(token, projectId)).userId;
  }

  /**
   * Throws `forbidden` (403) unless the user holds the permission; a vanished or disabled user is
   * `invalid_token`, and so is one whose epoch moved past `tokenEpoch` when given (a connection
   * admitted before a disable).
   */
  async requirePermission(projectId: number, userId: number, permission: string, tokenEpoch?: number): Promise<void> {
    const access = await this.currentAccess(projectId, userId, tokenEpoch);
    if (!access.permissions.has(permission)) throw new AppError('forbidden', `Permission '${permission}' required`);
  }

  /** The user's roles, from the access the permission check cached (a read only when it expired). */
  async rolesOf(projectId: number, userId: number): Promise<string[]> {
    return [...(await this.currentAccess(projectId, userId, undefined)).roles];
  }

  /** The user's cached access; `invalid_token` unless the user exists, is enabled and (when given) still at `tokenEpoch`. */
  private async currentAccess(
    projectId: number,
    userId: number,
    tokenEpoch: number | undefined,
  ): Promise<NonNullable<CachedAccess['access']>> {
    const key = `${projectId}:${userId}`;
    let cached = this.access.get(key);
    if (!cached) {
      const found = await this.accounts.accessOf(projectId, userId);
      cached = { access: found ? { ...found, permissions: new Set(found.permissions) } : null };
      this.access.set(key, cached);
    }
    const { access } = cached;
    if (!access || access.disabled || (tokenEpoch !== undefined && tokenEpoch !== access.tokenEpoch)) {
      throw new AppError('invalid_token', INVALID_TOKEN);
    }
    return access;
  }

  /** Drops the remembered secret hash of a client after its secret changed here (§6 rotation). */
  forgetClient(clientId: string): void {
    this.clients.delete(clientId);
  }

  /** Drops remembered permissions and state (of one user, or all) after a role change or a disable made here. */
  forgetPermissions(projectId?: number, userId?: number): void {
    if (projectId !== undefined && userId !== undefined) this.access.delete(`${projectId}:${userId}`);
    else this.access.clear();
  }

  /** Creates a user with the `player` role and signs them in; a taken username is `conflict` (409). */
  async signup(
    projectId: number,
    input: { username: string; password: string; nickname?: string },
    origin?: HookOrigin,
  ): Promise<AuthResponse> {
    checkCredentials(input.username, input.password);
    const account = { username: input.username, nickname: input.nickname ?? input.username };
    const nickname = await this.hookedNickname(projectId, account, origin);
    const passwordHash = await hashPassword(input.password, this.scrypt);
    const user = await this.accounts.createUser(
      projectId,
      { username: input.username, passwordHash, nickname, roles: [PLAYER_ROLE] },
      this.userEvents(projectId),
    );
    return this.issueTokens(createdUser(user));
  }

  /** How a new user of the project records `user.created` (§16). */
  userEvents(projectId: number): UserEvents {
    const record = recordOf(this.recording, projectId);
    return (user) => userCreatedEvents(projectId, record, Date.now(), { user_id: user.id, username: user.username });
  }

  /** The nickname the project's `auth.signup` hook gives the account (§16), or the one asked. */
  private async hookedNickname(projectId: number, account: SignupArgument, origin: HookOrigin | undefined) {
    const hook = origin ? this.hooks.find(projectId, 'auth.signup') : undefined;
    if (!hook || !origin) return account.nickname;
    const replacement = await hook(origin, account);
    if (replacement === undefined) return account.nickname;
    const nickname = isJsonObject(replacement) ? replacement.nickname : undefined;
    if (typeof nickname !== 'string' || nickname.length < 1 || nickname.length > MAX_NICKNAME) {
      throw unusableReplacement(
        origin,
        'auth.signup',
        `a replacement must be {nickname} of 1 to ${MAX_NICKNAME} characters`,
      );
    }
    return nickname;
  }

  /** Signs a user in; any mismatch is `invalid_login` (401) after the same scrypt work. */
  async login(projectId: number, input: { username: string; password: string }): Promise<AuthResponse> {
    const user = await this.accounts.findUserByUsername(projectId, input.username);
    const hash = user?.passwordHash ?? (await dummyHash(this.scrypt));
    const matches = await verifyPassword(input.password, hash);
    if (!user?.passwordHash || !matches) throw new AppError('invalid_login', INVALID_LOGIN);
    // Told only to whoever knows the password, so it reveals nothing about which usernames exist.
    if (user.disabled) throw new AppError('invalid_login', ACCOUNT_DISABLED);
    return this.issueTokens(user);
  }

  /** Signs in the guest bound to a device, creating it on the first call. */
  async guest(projectId: number, deviceId: string, origin?: HookOrigin): Promise<AuthResponse> {
    // The hook runs before the device's first login only (a known device has its account).
    const firstLogin = origin && this.hooks.find(projectId, 'auth.signup') !== undefined;
    const known = firstLogin ? await this.accounts.findUserByDevice(projectId, deviceId) : null;
    if (known?.disabled) throw new AppError('invalid_login', ACCOUNT_DISABLED);
    if (known) return this.issueTokens(known);
    for (let attempt = 1; ; attempt++) {
      const username = `guest_${randomBytes(8).toString('hex')}`;
      const account = { username, nickname: username, device_id: deviceId };
      const guest = await this.accounts.ensureGuest(
        projectId,
        {
          username,
          passwordHash: null,
          nickname: firstLogin ? await this.hookedNickname(projectId, account, origin) : username,
          roles: [PLAYER_ROLE],
          deviceId,
        },
        this.userEvents(projectId),
      );
      // The random name collided with an existing username: draw another.
      if (guest === 'taken' && attempt < GUEST_NAME_ATTEMPTS) continue;
      const user = createdUser(guest);
      if (user.disabled) throw new AppError('invalid_login', ACCOUNT_DISABLED);
      return this.issueTokens(user);
    }
  }

  /** Exchanges a refresh token (once) for new tokens; anything else is `invalid_token` (401). */
  async refresh(projectId: number, refreshToken: string): Promise<AuthResponse> {
    const grant = await this.accounts.consumeRefreshToken(projectId, sha256Hex(refreshToken), new Date());
    const user = grant === null ? null : await this.accounts.findUserById(projectId, grant.userId);
    // A disable between the two reads (even one re-enabled since) has moved the epoch on.
    if (!user || user.disabled || user.tokenEpoch !== grant?.tokenEpoch) {
      throw new AppError('invalid_token', INVALID_REFRESH);
    }
    return this.issueTokens(user);
  }

  /**
   * Ends the session of one refresh token (§14): it is refused from then on. Other sessions and
   * access tokens already issued are untouched; an unknown token, or one of another project,
   * revokes nothing and is not an error (the answer does not tell whether the token existed).
   */
  async logout(projectId: number, refreshToken: string): Promise<void> {
    await this.accounts.consumeRefreshToken(projectId, sha256Hex(refreshToken), new Date());
  }

  /** The caller's profile, roles and current permissions. */
  async me(projectId: number, userId: number): Promise<Me> {
    const user = await this.accounts.findUserById(projectId, userId);
    const permissions = user ? await this.accounts.permissionsOf(projectId, userId) : null;
    if (!user || !permissions) throw new AppError('invalid_token', INVALID_TOKEN);
    return { ...toAuthUser(user), roles: user.roles, permissions: [...permissions].sort() };
  }

  /** Updates the caller's nickname and/or avatar and returns the new profile. */
  async updateMe(
    projectId: number,
    userId: number,
    profile: { nickname?: string; avatar_url?: string | null },
  ): Promise<Me> {
    const changes: { nickname?: string; avatarUrl?: string | null } = {};
    if (profile.nickname !== undefined) changes.nickname = profile.nickname;
    if (profile.avatar_url !== undefined) changes.avatarUrl = profile.avatar_url;
    const user = await this.accounts.updateProfile(projectId, userId, changes);
    if (!user) throw new AppError('invalid_token', INVALID_TOKEN);
    return this.me(projectId, userId);
  }

  /** An access token for an existing user (the CLI's `cds token`), without a refresh token. */
  async issueAccessToken(projectId: number, userId: number): Promise<{ access_token: string; expires_in: number }> {
    const user = await this.accounts.findUserById(projectId, userId);
    if (!user) throw new AppError('not_found', 'User not found');
    if (user.disabled) throw new AppError('invalid_login', ACCOUNT_DISABLED);
    const signed = await this.tokens.sign(projectId, userId, user.tokenEpoch);
    return { access_token: signed.token, expires_in: signed.expiresIn };
  }

  /** Signs the user in: a new access token and a new stored refresh token. */
  async issueTokens(user: User): Promise<AuthResponse> {
    const access = await this.tokens.sign(user.projectId, user.id, user.tokenEpoch);
    const refreshToken = newRefreshToken();
    const expiresAt = new Date(Date.now() + this.refreshTtlMs);
    // Under the epoch `user` was read with, as the access token: a disable since refuses both.
    await this.accounts.saveRefreshToken(sha256Hex(refreshToken), user.projectId, user.id, expiresAt, user.tokenEpoch);
    return {
      access_token: access.token,
      token_type: 'bearer',
      expires_in: access.expiresIn,
      refresh_token: refreshToken,
      user: toAuthUser(user),
    };
  }
}
