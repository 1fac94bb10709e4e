-- Idempotency-Key on every creating POST (contract §11), replacing outbound_idempotency_keys
-- (0008). One row per project and key, kept 24 h. A request claims its key with a `pending` row
-- (the primary key lets one request in; the others wait for it), then stores the status and
-- the exact body it answered (`done`), which later requests with the key replay. `request_sha256`
-- covers the operation, its path and the canonical body: another request with the key is a 422.
-- A pending row whose lease (locked_until) ran out belongs to a request that died: the next
-- request with the key takes it over.
create table idempotency_keys (
  project_id uuid not null references projects (id) on delete cascade,
  key text not null,
  request_sha256 text not null,
  state text not null check (state in ('pending', 'done')),
  owner uuid not null,
  locked_until timestamptz,
  status_code integer,
  response text,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  primary key (project_id, key)
);
create index idempotency_keys_expiry on idempotency_keys (expires_at);

-- Outbound keys from before this release are forgotten (they held no response to replay).
drop table outbound_idempotency_keys;

-- Transcript entries (contract §11): whether the caller cut an assistant entry short; role may
-- now also be 'tool' (a tool call and its result).
alter table session_transcripts add column interrupted boolean not null default false;

-- Set by the retention sweeper when it deletes a session's transcript, so that reading it back
-- says "removed by retention" rather than "not stored".
alter table voice_sessions add column transcript_removed_at timestamptz;
