/** Stable error codes of the domain; `statusOf` maps each to its §0 status. */
export type ErrorCode =
  | 'bad_request'
  | 'invalid_client'
  | 'invalid_token'
  | 'invalid_login'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation'
  | 'rate_limited'
  | 'unavailable'
  | 'failed'
  | 'timed_out';

/** The one table from domain error codes to the §0 HTTP statuses (the HTTP layer answers with it). */
export const statusOf: Record<ErrorCode, number> = {
  bad_request: 400,
  invalid_client: 401,
  invalid_token: 401,
  invalid_login: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation: 422,
  rate_limited: 429,
  failed: 500,
  unavailable: 503,
  timed_out: 504,
};

/** The `detail` of an error's §0 body: the list of problems of a validation failure, else the message. */
export function detailOf(error: AppError): string | ValidationIssue[] {
  return error.code === 'validation' && error.issues ? error.issues : error.message;
}

/** One problem of a validation failure, in the §0 shape. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** An expected failure with a message safe to show to the client; `cause` stays in logs. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues?: ValidationIssue[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AppError';
  }
}

/** 400 with the given message. */
export const badRequest = (message: string): AppError => new AppError('bad_request', message);
/** 404 with the given message. */
export const notFound = (message: string): AppError => new AppError('not_found', message);
/** 409 with the given message. */
export const conflict = (message: string): AppError => new AppError('conflict', message);
/** 422 with the §0 list of problems. */
export const validationFailed = (issues: ValidationIssue[]): AppError =>
  new AppError('validation', issues.map((i) => i.msg).join('; '), issues);
