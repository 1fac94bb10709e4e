-- Stored transcripts (store_transcript) with their expiry, and post-call insights bookkeeping.

-- One row per utterance, written in the settlement transaction. The primary key makes a
-- second write of the same session's transcript impossible (settlement is exactly once anyway).
create table session_transcripts (
  session_id uuid not null references voice_sessions (id) on delete cascade,
  seq integer not null,                       -- 0-based order in the call
  role text not null,                         -- 'user' | 'assistant'
  text text not null,
  start_ms integer not null,                  -- relative to media connect
  end_ms integer not null,
  expires_at timestamptz not null,            -- ended_at + min(agent retention_days, TRANSCRIPT_RETENTION_DAYS)
  primary key (session_id, seq)
);
-- The retention sweeper deletes in expiry order.
create index session_transcripts_expiry on session_transcripts (expires_at);

-- Set in the settlement transaction when insights are due, cleared when they are stored
-- (completed or failed). A sweeper re-queues sessions pending for over a minute, so a crash
-- between commit and enqueue loses nothing. voice_sessions.insights (0004) holds the result.
alter table voice_sessions add column insights_pending_since timestamptz;
create index voice_sessions_insights_pending on voice_sessions (insights_pending_since) where insights_pending_since is not null;
