import type { AppContext } from '../shared/app-context.js';
import type { CreateVoiceSessionBody } from '../contract/voice-sessions.js';
import type { PublishableKeyLimits } from '../db/repos/publishable-keys.js';
import { admitSession, type AdmittedSession } from './admission.js';

// A browser session (contract §2, §11) is a web session admitted with a publishable key's limits,
// so that a public page cannot squat its project:
// - it counts against the key's own budget as well as the project's (admission.ts);
// - its ws_url lives only the key's connect window: unused by then, the sweeper ends it
//   `failed` / `not_connected` and its slots and hold go back;
// - its max duration is the key's (or the agent's, when lower), which also sizes the hold; the
//   media node ends the call there (`max_duration`).

export interface BrowserKey extends PublishableKeyLimits {
  id: string;
  project_id: string;
}

export async function admitBrowserSession(
  ctx: AppContext,
  key: BrowserKey,
  body: CreateVoiceSessionBody,
): Promise<AdmittedSession> {
  return admitSession(ctx, key.project_id, { ...body, max_duration_seconds: key.max_duration_seconds }, {
    tokenTtlSeconds: key.connect_window_seconds,
    publishableKey: { id: key.id, max_concurrent_sessions: key.max_concurrent_sessions },
  });
}
