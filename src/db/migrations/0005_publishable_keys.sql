-- Publishable keys: for a public web page with no server; they can only start a browser session.
create table publishable_keys (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects (id) on delete cascade,
  name text not null,
  origins text[] not null,
  agent_ids uuid[],                -- null: every agent of the project
  key_hash text not null unique,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index publishable_keys_project on publishable_keys (project_id, created_at desc);
