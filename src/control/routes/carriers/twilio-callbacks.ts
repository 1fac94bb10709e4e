import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CarrierInfo } from '../../../db/repos/carriers.js';
import { errors } from '../../../shared/errors.js';
import { handleRecordingCallback, handleStatusCallback } from '../../../telephony/callbacks.js';
import { answerIncomingCall } from '../../../telephony/inbound.js';
import { verifyTwilioRequest } from '../../../telephony/verify.js';
import { callbackPath } from '../../../telephony/urls.js';
import { BODY_LIMIT_BYTES } from '../../plugins/json-body.js';
import type { Router } from '../../route.js';

// Requests Twilio makes to us: call status, recording status and the voice webhook of a
// customer's number. Public routes, authenticated by X-Twilio-Signature with the auth token of
// the carrier named in the path, over the public URL (PUBLIC_BASE_URL + path + query) and the
// form parameters. Anything not signed by that carrier is 403 `{"detail": ...}`. Twilio sends
// application/x-www-form-urlencoded; the parser for it exists only in this plugin's scope.

// The app-wide limit (Twilio's forms are a few hundred bytes), so a 413 says the same everywhere.
const FORM_LIMIT_BYTES = BODY_LIMIT_BYTES;

interface CallbackRequest {
  Params: { carrier_id: string };
  Querystring: Record<string, unknown>;
  Body: unknown;
}

/** The signed carrier, or a 403 thrown as the contract's error shape. */
async function signedCarrier(router: Router, req: FastifyRequest<CallbackRequest>): Promise<{ carrier: CarrierInfo; form: URLSearchParams }> {
  const form = req.body instanceof URLSearchParams ? req.body : new URLSearchParams();
  const header = req.headers['x-twilio-signature'];
  const signature = typeof header === 'string' ? header : undefined;
  if (!signature) throw errors.forbidden('missing X-Twilio-Signature');
  const carrier = await verifyTwilioRequest(router.ctx, req.params.carrier_id, req.url, signature, form);
  if (!carrier) throw errors.forbidden('invalid X-Twilio-Signature');
  return { carrier, form };
}

export function twilioCallbackRoutes(router: Router): void {
  const { ctx } = router;
  router.app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_req, body, done) => {
      done(null, new URLSearchParams(body as string));
    });

    scope.post<CallbackRequest>(callbackPath(':carrier_id', 'status'), async (req, reply: FastifyReply) => {
      const { carrier, form } = await signedCarrier(router, req);
      const result = await handleStatusCallback(ctx, carrier, form, req.query);
      if (result === 'ignored') req.log.info({ carrier_id: carrier.id }, 'twilio status callback ignored');
      return reply.code(204).send();
    });

    scope.post<CallbackRequest>(callbackPath(':carrier_id', 'recording'), async (req, reply: FastifyReply) => {
      const { carrier, form } = await signedCarrier(router, req);
      const result = await handleRecordingCallback(ctx, carrier, form, req.query);
      if (result === 'ignored') req.log.info({ carrier_id: carrier.id }, 'twilio recording callback ignored');
      return reply.code(204).send();
    });

    scope.post<CallbackRequest>(callbackPath(':carrier_id', 'voice'), async (req, reply: FastifyReply) => {
      const { carrier, form } = await signedCarrier(router, req);
      const answer = await answerIncomingCall(ctx, carrier, form);
      return reply.code(200).header('content-type', 'text/xml; charset=utf-8').send(answer.twiml);
    });
  });
}
