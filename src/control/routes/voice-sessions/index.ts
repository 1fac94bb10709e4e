import { z } from 'zod';
import { getSession, listSessions, toSessionInfo } from '../../../db/repos/voice-sessions.js';
import { admitSession } from '../../../sessions/admission.js';
import { sessionErrors } from '../../../shared/errors.js';
import { defineProjectRoute, type Router } from '../../route.js';
import {
  CreateVoiceSessionBody,
  CreateVoiceSessionResponse,
  ListVoiceSessionsQuery,
  SessionPath,
  VoiceSessionInfo,
} from '../../../contract/voice-sessions.js';
import { outboundVoiceSessionRoutes } from './outbound.js';
import { transcriptRoutes } from './transcript.js';

/** Spec 4.3 / 4.4: media-session admission and reads, on both doors. */
export function voiceSessionRoutes(router: Router): void {
  const { ctx } = router;
  const tag = 'voice sessions';

  defineProjectRoute(
    router,
    {
      method: 'POST',
      path: '/voice/sessions',
      operationId: 'createVoiceSession',
      summary: 'Admit a media session (single-use ws_url; optional Idempotency-Key)',
      tag,
      scope: 'voice:write',
      body: CreateVoiceSessionBody,
      status: 201,
      response: CreateVoiceSessionResponse,
      errors: [402, 404, 409, 429, 503],
      idempotent: true,
    },
    async ({ project, body }) => admitSession(ctx, project.projectId, body),
  );
  outboundVoiceSessionRoutes(router);

  defineProjectRoute(
    router,
    { method: 'GET', path: '/voice/sessions', operationId: 'listVoiceSessions', summary: 'List voice sessions, newest first', tag, scope: 'voice:read', query: ListVoiceSessionsQuery, status: 200, response: z.array(VoiceSessionInfo) },
    async ({ project, query }) => (await listSessions(ctx, project.projectId, query)).map(toSessionInfo),
  );

  defineProjectRoute(
    router,
    { method: 'GET', path: '/voice/sessions/:session_id', operationId: 'getVoiceSession', summary: 'Get a voice session', tag, scope: 'voice:read', params: SessionPath, status: 200, response: VoiceSessionInfo },
    async ({ project, params }) => {
      const row = await getSession(ctx, project.projectId, params.session_id);
      if (!row) throw sessionErrors.sessionNotFound();
      return toSessionInfo(row);
    },
  );
  transcriptRoutes(router);
}
