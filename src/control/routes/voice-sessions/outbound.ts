import { admitOutbound } from '../../../telephony/outbound.js';
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
      operationId: 'createOutboundVoiceSession',
      summary: 'Queue an outbound phone call from a number on a verified carrier (optional Idempotency-Key)',
      tag: 'voice sessions',
      scope: 'voice:write',
      body: CreateOutboundVoiceSessionBody,
      status: 202,
      response: CreateOutboundVoiceSessionResponse,
      errors: [402, 409, 503],
      // Contract §8: a repeat answers the first session with `duplicate: true`.
      idempotent: { replay: (body) => ({ ...(body as object), duplicate: true }) },
    },
    async ({ project, body }) => admitOutbound(ctx, project.projectId, body),
  );
}
