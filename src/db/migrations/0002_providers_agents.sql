-- Bring-your-own-key provider accounts and agents (every agent version is kept).
create table provider_accounts (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects (id) on delete cascade,
  provider text not null,
  label text not null,
  base_url text,
  credentials_sealed text,            -- AES-256-GCM under the keyring; null for `local`
  key_hint text not null default '',
  status text not null default 'unverified' check (status in ('unverified', 'verified', 'invalid')),
  status_detail text,
  revision integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index provider_accounts_project on provider_accounts (project_id, created_at);

create table agents (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects (id) on delete cascade,
  version integer not null default 1,
  is_active boolean not null default true,
  name text not null,
  display_name text,
  prompt text not null,
  greeting text,
  language text not null,
  pipeline_mode text not null check (pipeline_mode in ('cascade', 'realtime')),
  pipeline_config jsonb not null,
  tools jsonb not null default '[]',
  tool_webhook_url text,
  variables jsonb not null default '[]',
  backchannel boolean not null,
  can_send_dtmf boolean not null,
  ambience_level integer,
  ambience_sound text,
  dead_air_seconds integer,
  idle_warn_seconds integer,
  idle_hangup_seconds integer,
  max_duration_seconds integer,
  max_chars_per_min integer,
  record_calls boolean not null,
  store_transcript boolean not null,
  retention_days integer,
  insight_config jsonb,
  webhook_url text,
  webhook_include_transcript boolean not null,
  webhook_include_recording_url boolean not null,
  webhook_secret_sealed text not null,  -- whsec_… sealed under the keyring
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index agents_project on agents (project_id, created_at desc, id desc);

-- The agent exactly as it was at each version (the V2AgentInfo document), so a session's
-- agent_version can always be read back.
create table agent_versions (
  agent_id uuid not null references agents (id) on delete cascade,
  version integer not null,
  document jsonb not null,
  created_at timestamptz not null default now(),
  primary key (agent_id, version)
);
