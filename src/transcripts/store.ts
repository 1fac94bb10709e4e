import type { Tx } from '../db/repos/voice-sessions.js';
import type { TranscriptEntry } from '../contract/events.js';

// Transcripts of calls whose effective store_transcript is true: one row per utterance in
// session_transcripts, written in the settlement transaction, deleted by the retention sweeper
// at expires_at (spec 2.10). Insights live on voice_sessions and outlive these rows.

const MAX_ENTRIES = 20_000;
const MAX_TEXT_CHARS = 20_000;
const MAX_MS = 2_147_483_647;
const INSERT_BATCH = 1_000;
const DAY_MS = 24 * 3600 * 1000;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text Postgres (text and jsonb) can store: no NUL, no unpaired surrogate. */
function storable(text: string): string {
  return text.replace(/\u0000/g, '').replace(LONE_SURROGATE, '\ufffd');
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
    const role = e.role === 'user' || e.role === 'assistant' ? e.role : storable(String(e.role ?? 'user')).slice(0, 32) || 'user';
    const start = toMs(e.start_ms);
    out.push({ role, text, start_ms: start, end_ms: Math.max(start, toMs(e.end_ms)) });
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

/** Writes the transcript (in the caller's transaction). A second write of a session is a no-op. */
export async function insertTranscript(tx: Tx, sessionId: string, entries: readonly TranscriptEntry[], expiresAt: Date): Promise<number> {
  let written = 0;
  for (let from = 0; from < entries.length; from += INSERT_BATCH) {
    const rows = entries.slice(from, from + INSERT_BATCH).map((e, i) => ({
      session_id: sessionId,
      seq: from + i,
      role: e.role,
      text: e.text,
      start_ms: e.start_ms,
      end_ms: e.end_ms,
      expires_at: expiresAt,
    }));
    const result = await tx`insert into session_transcripts ${tx(rows)} on conflict (session_id, seq) do nothing`;
    written += result.count;
  }
  return written;
}

/**
 * A session's stored transcript in call order; [] when none was stored or it was deleted.
 * With `now`, rows already past their expiry (not yet swept) are left out.
 */
export async function getTranscript(sql: Tx, sessionId: string, opts: { now?: Date } = {}): Promise<TranscriptEntry[]> {
  const expiry = opts.now ? sql`and expires_at > ${opts.now}` : sql``;
  return sql<TranscriptEntry[]>`
    select role, text, start_ms, end_ms from session_transcripts
    where session_id = ${sessionId} ${expiry} order by seq`;
}

/** True when the session has transcript rows. */
export async function hasTranscript(sql: Tx, sessionId: string): Promise<boolean> {
  const [row] = await sql<{ found: boolean }[]>`select exists (select 1 from session_transcripts where session_id = ${sessionId}) as found`;
  return row.found;
}
