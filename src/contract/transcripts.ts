import { z } from 'zod';

// GET /v2/voice/sessions/{session_id}/transcript (contract §11): the stored transcript of a call.

export const TRANSCRIPT_ROLES = ['user', 'assistant', 'tool'] as const;

export const TranscriptEntryInfo = z.object({
  role: z.enum(TRANSCRIPT_ROLES),
  text: z.string(),
  /** Milliseconds from the media connect. */
  start_ms: z.number().int(),
  end_ms: z.number().int(),
  /** True when the caller cut this (assistant) entry short by speaking over it. */
  interrupted: z.boolean(),
});

export const TranscriptInfo = z.object({
  session_id: z.uuid(),
  entries: z.array(TranscriptEntryInfo),
});
export type TranscriptInfo = z.output<typeof TranscriptInfo>;
