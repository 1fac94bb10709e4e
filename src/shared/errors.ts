// One catalogue of application errors. Each has a stable code, an HTTP status and a
// category; whether a client may retry follows from the category.

export type ErrorCategory =
  | 'authentication'
  | 'authorization'
  | 'invalid_request'
  | 'not_found'
  | 'conflict'
  | 'rate_limit'
  | 'quota'
  | 'connectivity'
  | 'server';

export interface FieldError {
  loc: (string | number)[];
  msg: string;
  type: string;
}

const RETRYABLE: ReadonlySet<ErrorCategory> = new Set(['rate_limit', 'connectivity', 'server']);

export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly category: ErrorCategory;
  readonly detail: string | FieldError[];
  readonly headers: Record<string, string>;

  constructor(
    code: string,
    status: number,
    category: ErrorCategory,
    detail: string | FieldError[],
    headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : 'validation failed');
    this.code = code;
    this.status = status;
    this.category = category;
    this.detail = detail;
    this.headers = headers;
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.category);
  }
}

const make =
  (code: string, status: number, category: ErrorCategory) =>
  (detail: string, headers?: Record<string, string>) =>
    new AppError(code, status, category, detail, headers);

export const errors = {
  missingApiKey: () => new AppError('VC_ERR_AUTH_MISSING_API_KEY', 401, 'authentication', 'missing API key'),
  invalidApiKey: () => new AppError('VC_ERR_AUTH_INVALID_API_KEY', 401, 'authentication', 'invalid API key'),
  unauthenticated: make('VC_ERR_AUTH_UNAUTHENTICATED', 401, 'authentication'),
  invalidCredentials: () =>
    new AppError('VC_ERR_AUTH_INVALID_CREDENTIALS', 401, 'authentication', 'invalid e-mail or password'),
  keyNotScoped: () =>
    new AppError('VC_ERR_AUTHZ_KEY_NOT_SCOPED', 403, 'authorization', 'API key is not scoped to a project'),
  projectUnavailable: () => new AppError('VC_ERR_AUTHZ_PROJECT_UNAVAILABLE', 403, 'authorization', 'project unavailable'),
  missingScope: (scope: string) =>
    new AppError('VC_ERR_AUTHZ_MISSING_SCOPE', 403, 'authorization', `API key lacks the required scope ${scope}`),
  accountSuspended: () => new AppError('VC_ERR_AUTHZ_ACCOUNT_SUSPENDED', 403, 'authorization', 'account suspended'),
  emailUnverified: () => new AppError('VC_ERR_AUTHZ_EMAIL_UNVERIFIED', 403, 'authorization', 'e-mail not verified'),
  forbidden: make('VC_ERR_AUTHZ_FORBIDDEN', 403, 'authorization'),
  notFound: (what = 'not found') => new AppError('VC_ERR_NOT_FOUND', 404, 'not_found', what),
  routeNotFound: () => new AppError('VC_ERR_ROUTE_NOT_FOUND', 404, 'not_found', 'route not found'),
  conflict: make('VC_ERR_CONFLICT', 409, 'conflict'),
  paymentRequired: make('VC_ERR_QUOTA_WALLET', 402, 'quota'),
  payloadTooLarge: () => new AppError('VC_ERR_REQUEST_TOO_LARGE', 413, 'invalid_request', 'request body too large (limit 1 MiB)'),
  unsupportedMediaType: () =>
    new AppError('VC_ERR_REQUEST_MEDIA_TYPE', 415, 'invalid_request', 'content-type must be application/json'),
  validation: (fields: FieldError[]) => new AppError('VC_ERR_VALIDATION', 422, 'invalid_request', fields),
  rateLimited: (retryAfterSeconds: number, detail = 'rate limit exceeded') =>
    new AppError('VC_ERR_RATE_LIMITED', 429, 'rate_limit', detail, { 'retry-after': String(retryAfterSeconds) }),
  unavailable: make('VC_ERR_UNAVAILABLE', 503, 'connectivity'),
  /** Postgres cannot be reached (outage, restart): nothing was done, retry. */
  databaseUnavailable: () =>
    new AppError('VC_ERR_UNAVAILABLE_DATABASE', 503, 'connectivity', 'database unavailable, retry later', { 'retry-after': '2' }),
  internal: () => new AppError('VC_ERR_INTERNAL', 500, 'server', 'internal error'),
};

/** One field error, for validation that zod cannot express (cross-record checks). */
export function fieldError(loc: (string | number)[], msg: string, type = 'value_error'): AppError {
  return errors.validation([{ loc, msg, type }]);
}

/** Voice session admission and settlement (contract §5, §6). */
export const sessionErrors = {
  agentInactive: () => new AppError('VC_ERR_CONFLICT_AGENT_INACTIVE', 409, 'conflict', 'agent is inactive'),
  providersUnavailable: () =>
    new AppError('VC_ERR_PROVIDER_UNAVAILABLE', 503, 'connectivity', 'provider accounts unverified or unavailable'),
  walletInsufficient: () =>
    new AppError('VC_ERR_QUOTA_WALLET', 402, 'quota', 'wallet cannot cover the session maximum duration'),
  concurrencyLimit: (retryAfterSeconds: number) =>
    new AppError('VC_ERR_RATE_CONCURRENCY', 429, 'rate_limit', 'concurrency limit reached', {
      'retry-after': String(retryAfterSeconds),
    }),
  draining: () => new AppError('VC_ERR_UNAVAILABLE_DRAINING', 503, 'connectivity', 'service draining'),
  /** Concurrency slots cannot be counted (Redis unreachable, or being rebuilt after a data loss). */
  slotsUnavailable: (retryAfterSeconds: number) =>
    new AppError('VC_ERR_UNAVAILABLE_SLOTS', 503, 'connectivity', 'concurrency slots unavailable, retry later', {
      'retry-after': String(retryAfterSeconds),
    }),
  sessionNotFound: () => new AppError('VC_ERR_NOT_FOUND', 404, 'not_found', 'voice session not found'),
  /** Every live media node is full or draining (issue 21: admission picks a node with room). */
  noMediaCapacity: (retryAfterSeconds: number) =>
    new AppError('VC_ERR_UNAVAILABLE_MEDIA_CAPACITY', 503, 'connectivity', 'no media node has room for another call, retry later', {
      'retry-after': String(retryAfterSeconds),
    }),
  /** The media node registry in Redis cannot be read. */
  mediaNodesUnavailable: (retryAfterSeconds: number) =>
    new AppError('VC_ERR_UNAVAILABLE_MEDIA_NODES', 503, 'connectivity', 'media nodes unavailable, retry later', {
      'retry-after': String(retryAfterSeconds),
    }),
  agentNotFound: () => new AppError('VC_ERR_NOT_FOUND', 404, 'not_found', 'agent not found'),
};

/** Carrier connections and their numbers (contract §10). */
export const carrierErrors = {
  carrierNotFound: () => new AppError('VC_ERR_NOT_FOUND', 404, 'not_found', 'carrier not found'),
  numberNotFound: () => new AppError('VC_ERR_NOT_FOUND', 404, 'not_found', 'carrier number not found'),
  carrierHasNumbers: (count: number) =>
    new AppError(
      'VC_ERR_CONFLICT_CARRIER_HAS_NUMBERS',
      409,
      'conflict',
      `carrier has ${count} number${count === 1 ? '' : 's'}; delete ${count === 1 ? 'it' : 'them'} first`,
    ),
  numberTaken: () =>
    new AppError('VC_ERR_CONFLICT_NUMBER_TAKEN', 409, 'conflict', 'this number is already on a carrier of the project'),
  carrierUnavailable: () => new AppError('VC_ERR_CARRIER_UNAVAILABLE', 503, 'connectivity', 'carrier connection unavailable'),
};
