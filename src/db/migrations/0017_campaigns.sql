-- Batch campaigns (issue 20, contract §11): an agent calls a list of numbers from a pool of the
-- project's outbound numbers, at most `max_concurrent_calls` at a time, inside calling windows
-- of the callee's time zone, retrying busy / no-answer calls with spacing.

create table campaigns (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects (id) on delete cascade,
  name text not null,
  -- No foreign key: a deleted agent pauses the campaign (the dial answers 404) rather than
  -- blocking the agent's deletion or losing the campaign.
  agent_id uuid not null,
  status text not null check (status in ('running', 'paused', 'canceled', 'completed')),
  from_numbers text[] not null check (cardinality(from_numbers) >= 1),
  max_concurrent_calls integer not null check (max_concurrent_calls >= 1),
  timezone text not null,
  -- [{days: ["mon", ...], start: "09:00", end: "17:00"}]; empty: any time.
  calling_windows jsonb not null default '[]',
  max_attempts integer not null check (max_attempts >= 1),
  retry_spacing_seconds integer not null check (retry_spacing_seconds >= 0),
  -- end reasons that are retried: a subset of busy, no_answer.
  retry_on text[] not null,
  max_duration_seconds integer,
  record boolean,
  store_transcript boolean,
  -- Why the scheduler could not dial lately (wallet, concurrency, agent, carrier); null when fine.
  last_error text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  -- Set once, with the campaign.completed event, when no row is left to dial or live.
  finished_at timestamptz
);
create index campaigns_project on campaigns (project_id, created_at desc, id desc);
create index campaigns_unfinished on campaigns (created_at) where finished_at is null;

-- One row per number to call. `position` is the row's index in the creating request.
create table campaign_rows (
  id uuid primary key default gen_random_uuid(),
  campaign_id uuid not null references campaigns (id) on delete cascade,
  position integer not null,
  to_e164 text not null,
  timezone text,
  variables jsonb not null default '{}',
  metadata jsonb,
  state text not null check (state in ('queued', 'in_progress', 'retrying', 'completed', 'failed', 'canceled')),
  -- Attempts admitted so far; the live or last one is `session_id`.
  attempts integer not null default 0,
  -- When the row may be dialled next; null: at once (a new row).
  next_attempt_at timestamptz,
  session_id uuid references voice_sessions (id) on delete set null,
  -- The last attempt's end_reason (or `rejected` when admission refused the row itself).
  outcome text,
  last_error text,
  updated_at timestamptz not null,
  unique (campaign_id, position)
);
create index campaign_rows_due on campaign_rows (campaign_id, next_attempt_at nulls first, position)
  where state in ('queued', 'retrying');
create index campaign_rows_state on campaign_rows (campaign_id, state);

-- Every admitted attempt: written in the same transaction as the session it admitted. The
-- primary key (row, attempt) is the idempotency key of the dial: a second admission of the same
-- attempt (two schedulers, a worker that died and was replaced) rolls back with its session,
-- so no row is dialled twice.
create table campaign_attempts (
  row_id uuid not null references campaign_rows (id) on delete cascade,
  attempt integer not null check (attempt >= 1),
  session_id uuid not null unique references voice_sessions (id) on delete cascade,
  from_e164 text not null,
  created_at timestamptz not null,
  primary key (row_id, attempt)
);
