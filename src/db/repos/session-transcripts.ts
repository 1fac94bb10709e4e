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

/** True when the session has transcript rows. */
export async function hasTranscript(db: Db, sessionId: string): Promise<boolean> {
  const [row] = await db<{ found: boolean }[]>`select exists (select 1 from session_transcripts where session_id = ${sessionId}) as found`;
  return row.found;
}

/** Deletes up to `limit` rows expired at `now`, skipping rows another transaction holds; returns how many went. */
export async function deleteExpiredTranscriptRows(db: Db, now: Date, limit: number): Promise<number> {
  const result = await db`
    delete from session_transcripts where (session_id, seq) in (
      select session_id, seq from session_transcripts where expires_at <= ${now}
      order by expires_at limit ${limit}
      for update skip locked)`;
  return result.count;
}
