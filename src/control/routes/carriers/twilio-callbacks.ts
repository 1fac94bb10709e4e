import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { CarrierInfo } from '../../../db/repos/carriers.js';
import { errors } from '../../../shared/errors.js';
import { handleRecordingCallback, handleStatusCallback } from '../../../telephony/callbacks.js';
import { answerIncomingCall } from '../../../telephony/inbound.js';
import { handleAmdCallback } from '../../../telephony/amd.js';
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

const CallbackPath = z.strictObject({ carrier_id: z.uuid() });
const SignatureHeader = z.object({ 'x-twilio-signature': z.string().describe('base64 HMAC-SHA1 of the public URL and the sorted form parameters, keyed with the auth token') });

/** The routes in /openapi.json: public (no API key), form-encoded bodies signed by Twilio. */
function documentCallbacks(router: Router): void {
  const common = { tag: 'carrier callbacks', auth: 'none' as const, method: 'POST' as const, params: CallbackPath, headers: SignatureHeader, errors: [403, 413] };
  router.docs.add({
    ...common,
    url: callbackPath(':carrier_id', 'voice'),
    operationId: 'twilioVoiceWebhook',
    summary: "Twilio's voice webhook of a bound number (its VoiceUrl, form-encoded, signed): answers TwiML that connects the call, or speaks a refusal and hangs up",
    status: 200,
  });
  router.docs.add({
    ...common,
    url: callbackPath(':carrier_id', 'status'),
    operationId: 'twilioStatusCallback',
    summary: "Twilio's call status callback (StatusCallback of calls and bound numbers, form-encoded, signed)",
    status: 204,
  });
  router.docs.add({
    ...common,
    url: callbackPath(':carrier_id', 'recording'),
    operationId: 'twilioRecordingCallback',
    summary: "Twilio's recording status callback (RecordingStatusCallback, form-encoded, signed)",
    status: 204,
  });
  router.docs.add({
    ...common,
    url: callbackPath(':carrier_id', 'amd'),
    operationId: 'twilioAmdCallback',
    summary: "Twilio's asynchronous answering-machine detection verdict (AsyncAmdStatusCallback of outbound calls whose agent has a voicemail setting, form-encoded, signed)",
    status: 204,
  });
}

export function twilioCallbackRoutes(router: Router): void {
  const { ctx } = router;
  documentCallbacks(router);
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

    scope.post<CallbackRequest>(callbackPath(':carrier_id', 'amd'), async (req, reply: FastifyReply) => {
      const { carrier, form } = await signedCarrier(router, req);
      const result = await handleAmdCallback(ctx, carrier, form, req.query);
      if (result === 'ignored') req.log.info({ carrier_id: carrier.id }, 'twilio amd callback ignored');
      return reply.code(204).send();
    });

    scope.post<CallbackRequest>(callbackPath(':carrier_id', 'voice'), async (req, reply: FastifyReply) => {
      const { carrier, form } = await signedCarrier(router, req);
      const answer = await answerIncomingCall(ctx, carrier, form);
      return reply.code(200).header('content-type', 'text/xml; charset=utf-8').send(answer.twiml);
    });
  });
}
