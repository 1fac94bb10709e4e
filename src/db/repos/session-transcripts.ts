import type { TranscriptEntry } from '../../contract/events.js';
import type { Db, Tx } from '../../shared/sql.js';

// session_transcripts: one row per utterance of a call whose store_transcript is on, written in
// the settlement transaction and deleted by the retention sweeper at expires_at.

const INSERT_BATCH = 1_000;

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
      interrupted: e.interrupted === true,
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
export async function getTranscript(db: Db, sessionId: string, opts: { now?: Date } = {}): Promise<TranscriptEntry[]> {
  const expiry = opts.now ? db`and expires_at > ${opts.now}` : db``;
  return db<TranscriptEntry[]>`
    select role, text, start_ms, end_ms from session_transcripts
    where session_id = ${sessionId} ${expiry} order by seq`;
}

export interface StoredTranscript {
  entries: Required<TranscriptEntry>[];
  /** The transcript was stored and retention removed it (swept, or past its expiry). */
  removed: boolean;
}

/** What GET .../transcript answers: the live entries, or why there are none. */
export async function readStoredTranscript(db: Db, sessionId: string, now: Date): Promise<StoredTranscript> {
  const entries = await db<Required<TranscriptEntry>[]>`
    select role, text, start_ms, end_ms, interrupted from session_transcripts
    where session_id = ${sessionId} and expires_at > ${now} order by seq`;
  if (entries.length > 0) return { entries, removed: false };
  const [row] = await db<{ removed: boolean }[]>`
    select (v.transcript_removed_at is not null or exists (select 1 from session_transcripts t where t.session_id = v.id)) as removed
    from voice_sessions v where v.id = ${sessionId}`;
  return { entries, removed: row?.removed ?? false };
}

/** True when the session has transcript rows. */
export async function hasTranscript(db: Db, sessionId: string): Promise<boolean> {
  const [row] = await db<{ found: boolean }[]>`select exists (select 1 from session_transcripts where session_id = ${sessionId}) as found`;
  return row.found;
}

/**
 * Deletes up to `limit` rows expired at `now`, skipping rows another transaction holds, and
 * marks their sessions' transcripts as removed by retention; returns how many rows went.
 */
export async function deleteExpiredTranscriptRows(db: Db, now: Date, limit: number): Promise<number> {
  const [row] = await db<{ n: number }[]>`
    with gone as (
      delete from session_transcripts where (session_id, seq) in (
        select session_id, seq from session_transcripts where expires_at <= ${now}
        order by expires_at limit ${limit}
        for update skip locked)
      returning session_id),
    marked as (
      update voice_sessions set transcript_removed_at = ${now}
      where id in (select distinct session_id from gone) and transcript_removed_at is null)
    select count(*)::int as n from gone`;
  return row.n;
}
