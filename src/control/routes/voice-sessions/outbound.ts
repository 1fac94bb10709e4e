import { admitOutbound } from '../../../telephony/outbound.js';
import { IdempotencyHeaders, IDEMPOTENCY_HEADER } from '../../../telephony/idempotency.js';
import { defineProjectRoute, type Router } from '../../route.js';
import { CreateOutboundVoiceSessionBody, CreateOutboundVoiceSessionResponse } from '../../../contract/voice-sessions.js';

/** Spec 4.3 rule 6 / 4.4: one outbound call queued through the project's own carrier, on both doors. */
export function outboundVoiceSessionRoutes(router: Router): void {
  const { ctx } = router;
  defineProjectRoute(
    router,
    {
      method: 'POST',
      path: '/voice/sessions/outbound',
      summary: 'Queue an outbound phone call from a number on a verified carrier (optional Idempotency-Key)',
      tag: 'voice sessions',
      scope: 'voice:write',
      headers: IdempotencyHeaders,
      body: CreateOutboundVoiceSessionBody,
      status: 202,
      response: CreateOutboundVoiceSessionResponse,
    },
    async ({ project, body, headers }) => admitOutbound(ctx, project.projectId, body, headers[IDEMPOTENCY_HEADER]),
  );
}
