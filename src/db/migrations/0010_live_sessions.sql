-- Admission counts a project's live sessions under its wallet lock (the concurrency limit's check
-- in Postgres, which no Redis outage or data loss can get wrong), and rebuilding the Redis slot
-- sets lists every live session: both read only unsettled rows.
create index voice_sessions_live on voice_sessions (project_id) where settled_at is null;
