-- Bring-your-own carrier connections (Twilio) and the numbers on them (contract §10).
create table carriers (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects (id) on delete cascade,
  kind text not null check (kind in ('twilio')),
  label text not null,
  base_url text,                      -- null: the carrier's own API host
  account_sid text not null,          -- not a secret: Twilio puts it in every URL and webhook
  credentials_sealed text,            -- {account_sid, auth_token} under the keyring, AAD = carrier id; null once deleted
  token_hint text not null default '',
  status text not null default 'unverified' check (status in ('unverified', 'verified', 'invalid')),
  status_detail text,
  revision integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index carriers_project on carriers (project_id, created_at desc, id desc) where deleted_at is null;
-- Inbound webhooks name the account: find its live carriers without a scan.
create index carriers_account_sid on carriers (account_sid) where deleted_at is null;

create table carrier_numbers (
  id uuid primary key default gen_random_uuid(),
  carrier_id uuid not null references carriers (id) on delete cascade,
  project_id uuid not null references projects (id) on delete cascade,
  e164 text not null check (e164 ~ '^\+[1-9][0-9]{6,14}$'),
  outbound_enabled boolean not null,
  agent_id uuid references agents (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
-- One live entry per number and project; a deleted number may be added again.
create unique index carrier_numbers_project_e164 on carrier_numbers (project_id, e164) where deleted_at is null;
create index carrier_numbers_carrier on carrier_numbers (carrier_id, created_at desc, id desc) where deleted_at is null;
create index carrier_numbers_e164 on carrier_numbers (e164) where deleted_at is null;
