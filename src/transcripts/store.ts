import type { TranscriptEntry } from '../contract/events.js';

// Transcripts of calls whose effective store_transcript is true: what is stored (one row per
// utterance in session_transcripts, see db/repos/session-transcripts) and for how long (spec
// 2.10). Insights live on voice_sessions and outlive these rows.

const MAX_ENTRIES = 20_000;
const MAX_TEXT_CHARS = 20_000;
const MAX_MS = 2_147_483_647;
const DAY_MS = 24 * 3600 * 1000;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text Postgres (text and jsonb) can store: no NUL, no unpaired surrogate. */
function storable(text: string): string {
  return text.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\ufffd');
}

function toMs(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) return 0;
  return Math.min(Math.max(Math.round(n), 0), MAX_MS);
}

/**
 * The transcript as the engine handed it, made safe to store and deliver: entries without
 * text are dropped, text is cleaned and capped, times are whole non-negative milliseconds.
 * Settlement must not fail because of what a speech recogniser produced.
 */
export function normalizeTranscript(input: readonly unknown[] | null | undefined): TranscriptEntry[] {
  if (!Array.isArray(input)) return [];
  const out: TranscriptEntry[] = [];
  for (const raw of input) {
    if (out.length >= MAX_ENTRIES) break;
    if (!raw || typeof raw !== 'object') continue;
    const e = raw as Record<string, unknown>;
    const text = storable(typeof e.text === 'string' ? e.text : '').slice(0, MAX_TEXT_CHARS);
    if (!text.trim()) continue;
    const role = e.role === 'user' || e.role === 'assistant' || e.role === 'tool' ? e.role : (typeof e.role === 'string' ? storable(e.role).slice(0, 32) : '') || 'user';
    const start = toMs(e.start_ms);
    const entry: TranscriptEntry = { role, text, start_ms: start, end_ms: Math.max(start, toMs(e.end_ms)) };
    if (e.interrupted === true) entry.interrupted = true;
    out.push(entry);
  }
  return out;
}

/** Days a transcript is kept: the agent's retention_days (when set) capped by the service's. */
export function retentionDays(agentRetentionDays: unknown, serviceDays: number): number {
  const agent = typeof agentRetentionDays === 'number' && Number.isInteger(agentRetentionDays) && agentRetentionDays >= 1 ? agentRetentionDays : null;
  return agent === null ? serviceDays : Math.min(agent, serviceDays);
}

export function transcriptExpiry(endedAt: Date, days: number): Date {
  return new Date(endedAt.getTime() + days * DAY_MS);
}
