// Error classes of spec §7: every HTTP error carries the status, the body's `detail` and the
// request id (`x-request-id`), so a report to the operator can name the request.

export interface FieldError {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface ApiErrorInit {
  status: number;
  detail: unknown;
  requestId: string | null;
  headers: Headers;
}

function messageOf(status: number, detail: unknown): string {
  if (typeof detail === 'string') return `${status}: ${detail}`;
  if (Array.isArray(detail)) return `${status}: ${detail.map((e: FieldError) => `${(e.loc ?? []).join('.')}: ${e.msg}`).join('; ')}`;
  return `${status}: ${JSON.stringify(detail)}`;
}

/** Any answer outside 2xx. Subclasses name the statuses spec §7 gives a class. */
export class VoiceApiError extends Error {
  readonly status: number;
  readonly detail: unknown;
  readonly requestId: string | null;
  readonly headers: Headers;
  constructor(init: ApiErrorInit) {
    super(messageOf(init.status, init.detail));
    this.name = new.target.name;
    this.status = init.status;
    this.detail = init.detail;
    this.requestId = init.requestId;
    this.headers = init.headers;
  }
}

/** 401 (missing, unknown or revoked credentials) and 403 (scope, suspension, origin). */
export class AuthenticationError extends VoiceApiError {}
/** 402: the wallet cannot cover the session's maximum duration. */
export class PaymentRequiredError extends VoiceApiError {}
/** 404: missing, or another project's (indistinguishable). */
export class NotFoundError extends VoiceApiError {}
/** 409: the resource is in a state that refuses the change. */
export class ConflictError extends VoiceApiError {}

/** 422: `errors` lists the offending fields, `loc` starting at body, query, path or header. */
export class ValidationError extends VoiceApiError {
  readonly errors: FieldError[];
  constructor(init: ApiErrorInit) {
    super(init);
    this.errors = Array.isArray(init.detail) ? (init.detail as FieldError[]) : [];
  }
}

/** 429: `retryAfter` is the server's Retry-After in seconds (null when absent). */
export class RateLimitError extends VoiceApiError {
  readonly retryAfter: number | null;
  constructor(init: ApiErrorInit) {
    super(init);
    this.retryAfter = retryAfterSeconds(init.headers);
  }
}

/** 5xx. */
export class ServerError extends VoiceApiError {}

/** No HTTP answer: the connection failed or was dropped before a response arrived. */
export class ConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConnectionError';
  }
}

/** The per-attempt timeout elapsed. */
export class TimeoutError extends ConnectionError {
  constructor(ms: number) {
    super(`request timed out after ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

/** Retry-After as seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(headers: Headers): number | null {
  const raw = headers.get('retry-after');
  if (raw === null) return null;
  if (/^\d+(\.\d+)?$/.test(raw.trim())) return Number(raw);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
}

/** The class spec §7 gives `status`. */
export function errorFor(init: ApiErrorInit): VoiceApiError {
  const s = init.status;
  if (s === 401 || s === 403) return new AuthenticationError(init);
  if (s === 402) return new PaymentRequiredError(init);
  if (s === 404) return new NotFoundError(init);
  if (s === 409) return new ConflictError(init);
  if (s === 422) return new ValidationError(init);
  if (s === 429) return new RateLimitError(init);
  if (s >= 500) return new ServerError(init);
  return new VoiceApiError(init);
}
