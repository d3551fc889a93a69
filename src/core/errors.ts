import { NotFoundError } from '@mikro-orm/core';
/** The one error vocabulary (CONTRACT section 3), shared by GraphQL, REST, SSE and workers. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  LIMIT_EXCEEDED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  NOT_IMPLEMENTED: 501,
  NOT_CONFIGURED: 503,
  UNAVAILABLE: 503,
  BAD_GATEWAY: 502,
  /** A storefront cart that cannot be ordered as it is (CONTRACT-3 §17.5): the body lists its `problems`. */
  CART_INVALID: 422,
  /** The same shopper ordered the same cart moments ago (CONTRACT-3 §17.7). */
  DUPLICATE_ORDER: 409,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_TITLES: Record<ErrorCode, string> = {
  BAD_REQUEST: 'Bad Request',
  VALIDATION_FAILED: 'Validation Failed',
  UNAUTHENTICATED: 'Unauthenticated',
  FORBIDDEN: 'Forbidden',
  NOT_FOUND: 'Not Found',
  METHOD_NOT_ALLOWED: 'Method Not Allowed',
  CONFLICT: 'Conflict',
  PAYLOAD_TOO_LARGE: 'Payload Too Large',
  LIMIT_EXCEEDED: 'Limit Exceeded',
  RATE_LIMITED: 'Too Many Requests',
  INTERNAL: 'Internal Server Error',
  NOT_IMPLEMENTED: 'Not Implemented',
  NOT_CONFIGURED: 'Service Unavailable',
  UNAVAILABLE: 'Service Unavailable',
  BAD_GATEWAY: 'Bad Gateway',
  CART_INVALID: 'Unprocessable Content',
  DUPLICATE_ORDER: 'Conflict',
};

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
    /** Members the problem body (and GraphQL's extensions) carry besides the vocabulary's own. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = (what = 'resource') => new AppError('NOT_FOUND', `No such ${what}`);
export const forbidden = (message = 'Your role does not allow this action') => new AppError('FORBIDDEN', message);
export const unauthenticated = (message = 'A valid bearer token is required') => new AppError('UNAUTHENTICATED', message);
export const conflict = (message: string) => new AppError('CONFLICT', message);
export const invalid = (path: string, message: string) =>
  new AppError('VALIDATION_FAILED', `${path ? `${path}: ` : ''}${message}`, [{ path, message }]);
export const notConfigured = (what: string, env: string) =>
  new AppError('NOT_CONFIGURED', `${what} is not configured on this server (set ${env})`);

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldError[];
  /** An error's own details (a cart's `problems`). */
  [member: string]: unknown;
}

export function problem(code: ErrorCode, detail: string, errors?: FieldError[], details?: Record<string, unknown>): Problem {
  const body: Problem = { ...details, type: 'about:blank', title: ERROR_TITLES[code], status: ERROR_STATUS[code], detail, code };
  if (errors && errors.length) body.errors = errors;
  return body;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && value in ERROR_STATUS;
}

/**
 * A foreign-key violation (23503) means a row the write names was deleted by a concurrent
 * transaction (the checks are deferred to commit): the store itself (NOT_FOUND) or another
 * record (CONFLICT, try again). Recognized by PostgreSQL's SQLSTATE and detail, whichever
 * statement raised it; a row that must exist and is gone (MikroORM's NotFoundError) is a CONFLICT
 * too; anything else is not the vocabulary's and stays null.
 */
export function vanishedReference(err: unknown): AppError | null {
  // A row read again after a provider call (findOneOrFail) is gone: its store was deleted meanwhile.
  if (err instanceof NotFoundError) return conflict('A record this request works on was deleted meanwhile');
  const e = err as { code?: unknown; detail?: unknown } | null;
  if (e?.code !== '23503') return null;
  if (typeof e.detail === 'string' && /is not present in table "stores"/.test(e.detail)) return notFound('store');
  return conflict('A record this write refers to was deleted meanwhile; try again');
}
