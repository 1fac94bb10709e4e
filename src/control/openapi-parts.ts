import type { z } from 'zod';
import type { RouteDef } from './route-def.js';

// The shared pieces of /openapi.json: which error statuses an operation answers, the error
// responses (all `{"detail": ...}`, 422 with field errors), and the headers contract §8 and §11
// put on responses (X-RateLimit-*, Retry-After, Idempotent-Replayed, x-request-id).

type AnyDef = RouteDef<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined>;
type Json = Record<string, unknown>;

const RESPONSES: Record<number, [name: string, description: string]> = {
  401: ['Unauthorized', 'missing or invalid credentials'],
  402: ['PaymentRequired', 'the wallet cannot cover the maximum duration'],
  403: ['Forbidden', 'not allowed (scope, suspended project or account, unverified e-mail, origin)'],
  404: ['NotFound', 'no such resource for this caller'],
  409: ['Conflict', 'the resource is in a state that refuses the change, or a request with this Idempotency-Key is still in progress'],
  413: ['PayloadTooLarge', 'request body over 1 MiB'],
  415: ['UnsupportedMediaType', 'content-type must be application/json'],
  422: ['ValidationFailed', 'invalid input: one entry per offending field'],
  429: ['RateLimited', 'too many requests; retry after Retry-After seconds'],
  500: ['InternalError', 'unexpected error; nothing internal is leaked, the x-request-id names the request'],
  503: ['Unavailable', 'temporarily unavailable (database, providers, carrier, draining); retry'],
};

/** The error statuses of an operation: what its auth and inputs imply plus its own `errors`. */
export function errorStatuses(r: AnyDef): number[] {
  const out = new Set<number>([500, 503, ...(r.errors ?? [])]);
  if (typeof r.auth === 'object') [401, 403, 429].forEach((s) => out.add(s));
  if (r.auth === 'console' || r.auth === 'console-unverified') [401, 403].forEach((s) => out.add(s));
  if (r.params) out.add(404);
  if (r.params || r.query || r.headers || r.body || r.idempotent) out.add(422);
  if (r.body) [413, 415].forEach((s) => out.add(s));
  if (r.idempotent) out.add(409);
  return [...out].sort((a, b) => a - b);
}

export function errorResponses(statuses: number[]): Record<string, Json> {
  return Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/${RESPONSES[s]?.[0] ?? 'InternalError'}` }]));
}

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
const rateHeaders = { 'X-RateLimit-Limit': ref('XRateLimitLimit'), 'X-RateLimit-Remaining': ref('XRateLimitRemaining'), 'X-RateLimit-Reset': ref('XRateLimitReset') };

/** Headers of a success response. */
export function successHeaders(machine: boolean, idempotent: boolean): Json {
  return {
    'x-request-id': ref('XRequestId'),
    ...(machine ? rateHeaders : {}),
    ...(idempotent ? { 'Idempotent-Replayed': ref('IdempotentReplayed') } : {}),
  };
}

function errorResponse(status: number, description: string): Json {
  const headers: Json = { 'x-request-id': ref('XRequestId') };
  if (status === 429 || status === 503 || status === 409) headers['Retry-After'] = ref('RetryAfter');
  if (status === 429) Object.assign(headers, rateHeaders);
  const schema = status === 422 ? 'ValidationError' : 'Error';
  return { description, headers, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } };
}

const intHeader = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });

/** components: security schemes, shared parameters, headers and error responses. */
export function sharedComponents(): Json {
  return {
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'Machine door: a project API key' },
      bearer: { type: 'http', scheme: 'bearer', description: 'Console door: an access token from /console/auth/login' },
      publishableKey: { type: 'apiKey', in: 'header', name: 'X-Publishable-Key', description: 'Browser calls: a publishable key, used from an origin on its list' },
    },
    parameters: {
      IdempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'Makes the POST safe to retry: kept 24 h per project; the same key with the same body replays the first success ' +
          '(status and body, with Idempotent-Replayed: true); with another body it is a 422 at loc ["header","Idempotency-Key"]. ' +
          'Errors are not kept: a failed request may be retried with its key.',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]{1,255}$' },
      },
    },
    headers: {
      XRequestId: { description: 'The request id (also in logs)', schema: { type: 'string' } },
      XRateLimitLimit: intHeader('Requests allowed in the current one-minute window'),
      XRateLimitRemaining: intHeader('Requests left in the current window'),
      XRateLimitReset: intHeader('Seconds until the window resets'),
      RetryAfter: intHeader('Seconds to wait before retrying'),
      IdempotentReplayed: { description: 'Present (true) when this response replays the first response to the Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
    },
    responses: Object.fromEntries(Object.entries(RESPONSES).map(([status, [name, description]]) => [name, errorResponse(Number(status), description)])),
  };
}
