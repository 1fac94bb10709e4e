import type { FastifyInstance } from 'fastify';
import { errors } from '../../shared/errors.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Strict JSON bodies: malformed JSON is a 422 at `loc ["body"]`; an empty body is "no body". */
export function installJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(
    /^application\/([a-z0-9.+-]*\+)?json$/i,
    { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES },
    (_req, body, done) => {
      const text = (body as string).trim();
      if (text === '') return done(null, undefined);
      try {
        done(null, JSON.parse(text));
      } catch {
        done(errors.validation([{ loc: ['body'], msg: 'malformed JSON', type: 'json_invalid' }]), undefined);
      }
    },
  );
}
