-- Voice sessions (one row per call), per-project wallets and the money ledger.
-- Money is integer nano-USD (bigint) everywhere; the wire carries decimal strings.

create table voice_sessions (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects (id) on delete cascade,
  agent_id uuid references agents (id) on delete set null,
  agent_version integer,
  status text not null default 'created' check (status in ('created', 'active', 'completed', 'failed')),
  direction text not null check (direction in ('web', 'outbound', 'inbound')),
  language text not null,
  pipeline_mode text not null,
  pipeline_snapshot jsonb not null,        -- stages + provider + account_revision, never credentials
  project_revision integer not null,
  sample_rate_in integer not null,
  sample_rate_out integer not null,
  encoding text not null default 'pcm16' check (encoding in ('pcm16', 'opus')),
  max_duration_seconds integer not null,
  connected_seconds integer not null default 0,
  created_at timestamptz not null,
  started_at timestamptz,
  ended_at timestamptz,
  media_connected_at timestamptz,
  media_disconnected_at timestamptz,
  end_reason text,
  record boolean not null,
  store_transcript boolean not null,
  metadata jsonb,
  variables jsonb not null default '{}',   -- text values rendered into the prompt
  insights jsonb,
  recording_ref jsonb,
  rate_nano_usd_per_min bigint not null,
  rate_version text not null,
  hold_nano_usd bigint not null,
  cost_nano_usd bigint not null default 0,
  -- Single-use media token: only its SHA-256 is stored; consumed atomically on first connect.
  token_hash text,
  token_expires_at timestamptz,
  token_used_at timestamptz,
  -- Crash recovery: the media node running the call renews the lease; a sweeper settles
  -- active sessions whose lease ran out (the node died).
  node_id text,
  lease_expires_at timestamptz,
  heartbeat_at timestamptz,
  -- Settlement happens exactly once (also guarded by the ledger's unique (session_id, kind)).
  settled_at timestamptz
);
create index voice_sessions_project on voice_sessions (project_id, created_at desc, id desc);
create index voice_sessions_project_agent on voice_sessions (project_id, agent_id, created_at desc);
create index voice_sessions_unsettled_created on voice_sessions (token_expires_at) where status = 'created';
create index voice_sessions_unsettled_active on voice_sessions (lease_expires_at) where status = 'active';

create table wallets (
  project_id uuid primary key references projects (id) on delete cascade,
  balance_nano_usd bigint not null default 0 check (balance_nano_usd >= 0),
  held_nano_usd bigint not null default 0 check (held_nano_usd >= 0),
  updated_at timestamptz not null default now(),
  check (held_nano_usd <= balance_nano_usd)
);

create table wallet_ledger (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects (id) on delete cascade,
  kind text not null check (kind in ('credit', 'hold', 'release', 'charge')),
  amount_nano_usd bigint not null check (amount_nano_usd >= 0),
  session_id uuid references voice_sessions (id) on delete cascade,
  created_at timestamptz not null
);
create index wallet_ledger_project on wallet_ledger (project_id, created_at desc, id desc);
-- A session is held, released and charged exactly once.
create unique index wallet_ledger_session_kind on wallet_ledger (session_id, kind) where session_id is not null;
