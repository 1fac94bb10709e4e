// Webhook event types and the transcript entry every layer passes around (contract §4, §5).

export const EVENT_TYPES = ['call.completed', 'call.failed', 'webhook.ping'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface TranscriptEntry {
  role: string;
  text: string;
  start_ms: number;
  end_ms: number;
}
