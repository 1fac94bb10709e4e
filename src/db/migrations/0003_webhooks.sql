-- Webhook endpoints, the event outbox and deliveries (the system of record for delivery state;
-- BullMQ jobs only carry a delivery id and can always be rebuilt from these rows).
create table webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects (id) on delete cascade,
  name text not null,
  url text not null,
  event_types text[] not null default '{}',   -- empty = every event type
  status text not null default 'active' check (status in ('active', 'disabled')),
  revision integer not null default 1,
  secret_sealed text not null,                -- whsec_… sealed under the keyring, AAD = endpoint id
  secret_hint text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_endpoints_project on webhook_endpoints (project_id, created_at desc, id desc);

-- The outbox: one row per event, written in the same transaction as the state change.
create table webhook_events (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects (id) on delete cascade,
  type text not null,
  data jsonb not null,                        -- what project endpoints receive as `data`
  created_at timestamptz not null default now()
);
create index webhook_events_project on webhook_events (project_id, created_at desc);

-- One row per (event, target). `id` is the webhook-id header, stable across retries.
-- status: pending (waiting for its next attempt) → sending (claimed by a worker, lease_until)
-- → delivered | dead (exhausted; the dead letter) | cancelled (endpoint disabled or revised).
create table webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  event_id uuid not null references webhook_events (id) on delete cascade,
  project_id uuid not null references projects (id) on delete cascade,
  event_type text not null,
  kind text not null check (kind in ('endpoint', 'agent')),
  endpoint_id uuid references webhook_endpoints (id) on delete cascade,
  endpoint_revision integer,
  agent_id uuid references agents (id) on delete cascade,
  url text not null,
  data jsonb,                                 -- per-target data (agent: transcript…); null = the event's
  status text not null default 'pending'
    check (status in ('pending', 'sending', 'delivered', 'dead', 'cancelled')),
  attempts integer not null default 0,
  max_attempts integer not null check (max_attempts >= 1),
  last_error text,
  last_status integer,
  next_attempt_at timestamptz,
  lease_until timestamptz,
  dedupe_key text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  delivered_at timestamptz,
  check ((kind = 'endpoint' and endpoint_id is not null and endpoint_revision is not null)
      or (kind = 'agent' and agent_id is not null))
);
-- Test pings: one per endpoint, revision and minute.
create unique index webhook_deliveries_dedupe on webhook_deliveries (dedupe_key) where dedupe_key is not null;
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_leased on webhook_deliveries (lease_until) where status = 'sending';
create index webhook_deliveries_endpoint_open on webhook_deliveries (endpoint_id) where status in ('pending', 'sending');
create index webhook_deliveries_dead on webhook_deliveries (project_id, updated_at desc, id desc) where status = 'dead';
