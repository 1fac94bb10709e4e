import type { CallInsightsInfo } from '../contract/voice-sessions.js';

// The CallInsightsInfo of an analysis that could not produce a result; stored like any other
// (db/repos/session-insights), so the error can be read on the session.

export type { CallInsightsInfo };

export function failedInsights(model: string, error: string, at: Date): CallInsightsInfo {
  return { status: 'failed', summary: null, success: null, data: {}, model, completed_at: at.toISOString(), error };
}
