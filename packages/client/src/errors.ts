import type { ErrorBody } from './types.js';

/** The §12 error codes. */
export type CdsErrorCode =
  | 'permission-denied'
  | 'precondition-failed'
  | 'not-found'
  | 'unauthenticated'
  | 'invalid-argument'
  | 'network';

/** Every failure of the SDK: `status` is the HTTP status (0 when no response arrived). */
export class CdsError extends Error {
  override readonly name = 'CdsError';
  /** On a realtime write refused by its `if_match` (§11): the path's current ETag and value. */
  current?: { etag: string; value: unknown };
  constructor(
    readonly status: number,
    readonly detail: ErrorBody['detail'],
    readonly code: CdsErrorCode,
  ) {
    super(typeof detail === 'string' ? detail : detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '));
  }
}

/** The code of an HTTP status. */
export function codeOf(status: number): CdsErrorCode {
  if (status === 401) return 'unauthenticated';
  if (status === 403) return 'permission-denied';
  if (status === 404) return 'not-found';
  if (status === 409 || status === 412) return 'precondition-failed';
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return 'invalid-argument';
  return 'network';
}

/** A WebSocket `error` event's message as a CdsError (the server sends no status there). */
export function socketError(message: string): CdsError {
  const lower = message.toLowerCase();
  if (lower.includes('permission')) return new CdsError(403, message, 'permission-denied');
  if (lower.includes('token') || lower.includes('credentials')) return new CdsError(401, message, 'unauthenticated');
  if (lower.includes('precondition')) return new CdsError(412, message, 'precondition-failed');
  return new CdsError(400, message, 'invalid-argument');
}
