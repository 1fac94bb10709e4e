// Webhook event types and the transcript entry every layer passes around (contract §4, §5).

export const EVENT_TYPES = ['call.completed', 'call.failed', 'call.transferred', 'webhook.ping', 'campaign.completed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface TranscriptEntry {
  /** 'user' | 'assistant' | 'tool' (a tool call and its result). */
  role: string;
  text: string;
  start_ms: number;
  end_ms: number;
  /** True when the caller cut this assistant entry short by speaking over it. */
  interrupted?: boolean;
}
