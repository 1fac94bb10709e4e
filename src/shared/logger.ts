import { pino, type Logger } from 'pino';

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

/** `fd` 2 sends logs to stderr (the admin command keeps stdout for its JSON answer). */
export function createLogger(level = 'info', name = 'voice', fd: 1 | 2 = 1): Logger {
  return pino({ name, level, redact: { paths: REDACT, censor: '[redacted]' } }, pino.destination({ fd, sync: fd === 2 }));
}

export type { Logger };
