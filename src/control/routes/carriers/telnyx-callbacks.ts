import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { errors } from '../../../shared/errors.js';
import { handleTelnyxEvent, parseTelnyxEvent } from '../../../telephony/telnyx-events.js';
import { verifyTelnyxRequest } from '../../../telephony/verify.js';
import { telnyxWebhookPath } from '../../../telephony/urls.js';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../../../carriers/telnyx/signature.js';
import { BODY_LIMIT_BYTES } from '../../plugins/json-body.js';
import type { Router } from '../../route.js';

// The Call Control webhook of a Telnyx carrier (its application's webhook_event_url and the
// webhook_url of our calls). Public, authenticated by the Ed25519 signature of the carrier's
// account over `telnyx-timestamp|raw body`: the body is kept raw in this plugin's scope so the
// exact bytes Telnyx signed are verified before anything is parsed. Unsigned or stale: 403.

interface WebhookRequest {
  Params: { carrier_id: string };
  Body: Buffer;
}

const header = (req: FastifyRequest, name: string) => {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
};

const WebhookPath = z.strictObject({ carrier_id: z.uuid() });
const WebhookHeaders = z.object({
  [SIGNATURE_HEADER]: z.string().describe('base64 Ed25519 signature of `telnyx-timestamp|body` by the Telnyx account'),
  [TIMESTAMP_HEADER]: z.string().describe('Unix seconds; more than 300 s away from now is refused'),
});
const WebhookBody = z.object({
  data: z.object({ event_type: z.string(), id: z.string().optional(), occurred_at: z.string().optional(), payload: z.record(z.string(), z.unknown()) }),
  meta: z.record(z.string(), z.unknown()).optional(),
});

export function telnyxCallbackRoutes(router: Router): void {
  const { ctx } = router;
  router.docs.add({
    tag: 'carrier callbacks',
    auth: 'none',
    method: 'POST',
    url: telnyxWebhookPath(':carrier_id'),
    operationId: 'telnyxCallControlWebhook',
    summary: 'Telnyx Call Control webhook (signed with Ed25519): answers inbound calls with the media stream or a spoken refusal, and tracks call progress and recordings',
    params: WebhookPath,
    headers: WebhookHeaders,
    body: WebhookBody,
    status: 200,
    errors: [403, 413, 422],
  });
  router.app.register(async (scope) => {
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_req, body, done) => done(null, body));

    scope.post<WebhookRequest>(telnyxWebhookPath(':carrier_id'), async (req, reply: FastifyReply) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const signature = header(req, SIGNATURE_HEADER);
      const timestamp = header(req, TIMESTAMP_HEADER);
      if (!signature || !timestamp) throw errors.forbidden(`missing ${SIGNATURE_HEADER} or ${TIMESTAMP_HEADER}`);
      const carrier = await verifyTelnyxRequest(ctx, req.params.carrier_id, signature, timestamp, raw);
      if (!carrier) throw errors.forbidden(`invalid ${SIGNATURE_HEADER}`);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw errors.validation([{ loc: ['body'], msg: 'malformed JSON', type: 'json_invalid' }]);
      }
      const event = parseTelnyxEvent(body);
      if (!event) throw errors.validation([{ loc: ['body', 'data'], msg: 'not a Telnyx webhook event', type: 'value_error' }]);
      const result = await handleTelnyxEvent(ctx, carrier, event);
      if (result === 'ignored') req.log.info({ carrier_id: carrier.id, event_type: event.eventType.slice(0, 64) }, 'telnyx webhook ignored');
      return reply.code(200).send({ received: true });
    });
  });
}
