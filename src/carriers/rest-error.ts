// An error from a carrier's REST API, whichever carrier: what kind of failure it was, the HTTP
// status, and whether the carrier may have acted on the request anyway (a blind retry of a
// create could then place a second call). Messages never carry credentials.

export type CarrierErrorKind =
  | 'auth' // 401: wrong credentials
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'invalid_request' // other 4xx (a bad number, an unverified caller id, ...)
  | 'rate_limited' // 429
  | 'server' // 5xx
  | 'redirect' // 3xx: base_url points somewhere else
  | 'network' // no answer at all
  | 'timeout'
  | 'unexpected_response'; // 2xx whose body is not what the carrier sends

export class CarrierRestError extends Error {
  readonly code: string = 'VC_ERR_CARRIER';
  /** Seconds from the carrier's Retry-After header (429/503), when it sent one. */
  retryAfterSeconds: number | null = null;
  constructor(
    readonly kind: CarrierErrorKind,
    message: string,
    readonly httpStatus: number | null = null,
    /** True when the carrier may have acted on the request although we got no usable answer. */
    readonly maybeApplied = false,
  ) {
    super(message);
  }

  get retryable(): boolean {
    return ['rate_limited', 'server', 'network', 'timeout'].includes(this.kind);
  }
}

export function errorKindOf(status: number): CarrierErrorKind {
  if (status === 401) return 'auth';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 300 && status < 400) return 'redirect';
  if (status >= 500) return 'server';
  return 'invalid_request';
}
