/**
 * PostgreSQL being unreachable is not a bug of the request: the stores' connection-level
 * failures become `AppError('unavailable', 'Database unavailable')` (503) here, inside the
 * engine, so the layers above never see a driver error. Queries that fail for any other reason
 * (a constraint, a bad statement) pass through unchanged.
 */
import { AppError } from '../../core/errors.js';

/** The message clients get while the database cannot be reached (§0 error body). */
export const DATABASE_UNAVAILABLE = 'Database unavailable';

// Socket-level failures of node:net / node:dns, seen while connecting or on a live connection.
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
]);

// SQLSTATEs of a server that is going away or not there yet: admin_shutdown, crash_shutdown,
// cannot_connect_now (starting up or shutting down), and the whole class 08 (connection exception).
const SERVER_STATES = new Set(['57P01', '57P02', '57P03']);

// Messages of `pg` and `pg-pool` for a connection that ended or could not be made in time.
const DRIVER_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /Client has encountered a connection error and is not queryable/,
  /Connection terminated due to connection timeout/,
];

/** True when `error` says the database could not be reached, not that a statement failed. */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof AggregateError && error.errors.some(isConnectionError)) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || SERVER_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  return DRIVER_MESSAGES.some((pattern) => pattern.test(error.message));
}

/** The error to throw for `error`: a 503 `AppError` for a connection failure (keeping it as the cause), else itself. */
export function translateConnectionError(error: unknown): unknown {
  if (error instanceof AppError || !isConnectionError(error)) return error;
  return new AppError('unavailable', DATABASE_UNAVAILABLE, undefined, { cause: error });
}

/**
 * `store` with every method's failures translated by `translateConnectionError`: the stores
 * stay plain SQL, and no connection failure escapes the engine whatever method it came from.
 */
export function guardConnectionErrors<T extends object>(store: T): T {
  return new Proxy(store, {
    get(target, property, receiver) {
      const member: unknown = Reflect.get(target, property, receiver);
      if (typeof member !== 'function') return member;
      return (...args: unknown[]): unknown => {
        let result: unknown;
        try {
          result = Reflect.apply(member, target, args);
        } catch (error) {
          throw translateConnectionError(error);
        }
        if (!(result instanceof Promise)) return result;
        return result.catch((error: unknown) => {
          throw translateConnectionError(error);
        });
      };
    },
  });
}
