import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, errors } from '../../shared/errors.js';
import { isDatabaseUnavailable, isUniqueViolation } from '../../shared/pg-errors.js';

// Every failure leaves as {"detail": ...}. Fastify's own errors and Postgres errors are
// classified here, once; anything unknown is a 500 that leaks nothing but the request id.

const PG_CLASSES: Record<string, () => AppError> = {
  '40001': () => errors.unavailable('temporarily unavailable, retry'),
  '40P01': () => errors.unavailable('temporarily unavailable, retry'),
};

function classify(err: FastifyError & { code?: string }): AppError | null {
  if (err instanceof AppError) return err;
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.validation([{ loc: ['body'], msg: 'malformed JSON', type: 'json_invalid' }]);
  }
  if (isUniqueViolation(err)) return errors.conflict('resource already exists');
  // Postgres down or restarting: a 503 the SDKs retry (Retry-After), never a 500.
  if (isDatabaseUnavailable(err)) return errors.databaseUnavailable();
  if (err.code && PG_CLASSES[err.code]) return PG_CLASSES[err.code]();
  // SQLSTATE class 22 (data exception: text Postgres cannot store, out-of-range numbers) and
  // 54 (too complex) come from client-supplied values that slipped past validation.
  if (err.code && /^(22|54)[0-9A-Z]{3}$/.test(err.code) && 'severity' in err) {
    return errors.validation([{ loc: ['body'], msg: 'value cannot be stored', type: 'value_error' }]);
  }
  const status = err.statusCode ?? 0;
  if (status >= 400 && status < 500) {
    return new AppError(`VC_ERR_HTTP_${status}`, status, 'invalid_request', err.message || 'bad request');
  }
  return null;
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const known = classify(err);
    if (!known) {
      req.log.error({ err }, 'unhandled error');
      return reply.code(500).send({ detail: 'internal error' });
    }
    if (known.status >= 500) req.log.warn({ code: known.code }, 'request failed');
    return reply.code(known.status).headers(known.headers).send({ detail: known.detail });
  });
  app.setNotFoundHandler((_req, reply) => {
    const e = errors.routeNotFound();
    return reply.code(e.status).send({ detail: e.detail });
  });
}
