import type { FastifyInstance } from 'fastify';
import { errors } from '../../shared/errors.js';
import { storableProblem } from '../../contract/text.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Strict JSON bodies: malformed JSON is a 422 at `loc ["body"]`; a body nested too deep or
 * holding text Postgres cannot store is a 422 at the first such place; an empty body is "no body".
 */
export function installJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(
    /^application\/([a-z0-9.+-]*\+)?json$/i,
    { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES },
    (_req, body, done) => {
      const text = (body as string).trim();
      if (text === '') return done(null, undefined);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return done(errors.validation([{ loc: ['body'], msg: 'malformed JSON', type: 'json_invalid' }]), undefined);
      }
      const problem = storableProblem(parsed);
      if (problem) return done(errors.validation([{ ...problem, type: 'value_error' }]), undefined);
      done(null, parsed);
    },
  );
}
