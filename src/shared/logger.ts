import { pino, type DestinationStream, type Logger } from 'pino';

// Secrets and personal data never reach the log: these paths are censored wherever they
// appear (request bodies, headers, our own structured fields).
const REDACT = [
  'password',
  '*.password',
  'credentials',
  '*.credentials',
  'api_key',
  '*.api_key',
  'key',
  '*.key',
  'token',
  '*.token',
  'access_token',
  '*.access_token',
  'refresh_token',
  '*.refresh_token',
  'webhook_secret',
  '*.webhook_secret',
  'signing_secret',
  '*.signing_secret',
  'auth_token',
  '*.auth_token',
  'prompt',
  '*.prompt',
  'transcript',
  '*.transcript',
  'phone',
  '*.phone',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-publishable-key"]',
  'req.headers.cookie',
];

/** `to` 2 sends logs to stderr (the admin command keeps stdout for its JSON answer). */
export function createLogger(level = 'info', name = 'voice', to: 1 | 2 | DestinationStream = 1): Logger {
  const dest = typeof to === 'number' ? pino.destination({ fd: to, sync: to === 2 }) : to;
  return pino({ name, level, redact: { paths: REDACT, censor: '[redacted]' } }, dest);
}

export type { Logger };
