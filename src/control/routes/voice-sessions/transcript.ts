import { getSession } from '../../../db/repos/voice-sessions.js';
import { readStoredTranscript } from '../../../transcripts/index.js';
import { errors, sessionErrors } from '../../../shared/errors.js';
import { defineProjectRoute, type Router } from '../../route.js';
import { TRANSCRIPT_ROLES, TranscriptInfo } from '../../../contract/transcripts.js';
import { SessionPath } from '../../../contract/voice-sessions.js';

const ROLES: ReadonlySet<string> = new Set(TRANSCRIPT_ROLES);

/**
 * Contract §11: a call's stored transcript, on both doors. 404 names why there is none: the
 * session is not the project's, the transcript was never stored (store_transcript off, the call
 * not over, nothing said), or retention removed it.
 */
export function transcriptRoutes(router: Router): void {
  const { ctx } = router;
  defineProjectRoute(
    router,
    {
      method: 'GET',
      path: '/voice/sessions/:session_id/transcript',
      operationId: 'getVoiceSessionTranscript',
      summary: 'Get the stored transcript of a call (user, assistant and tool entries in call order)',
      tag: 'voice sessions',
      scope: 'voice:read',
      params: SessionPath,
      status: 200,
      response: TranscriptInfo,
    },
    async ({ project, params }): Promise<TranscriptInfo> => {
      const sessionId = params.session_id.toLowerCase();
      if (!(await getSession(ctx, project.projectId, sessionId))) throw sessionErrors.sessionNotFound();
      const stored = await readStoredTranscript(ctx.sql, sessionId, ctx.clock.now());
      if (stored.entries.length === 0) throw errors.notFound(stored.removed ? 'transcript removed by retention' : 'transcript not stored');
      // Roles written before roles were fixed (anything but user, assistant, tool) are left out.
      const entries = stored.entries.filter((e) => ROLES.has(e.role)) as TranscriptInfo['entries'];
      return { session_id: sessionId, entries };
    },
  );
}
