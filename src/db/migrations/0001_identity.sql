-- Accounts, console sessions (token families), projects and project API keys.
create table accounts (
  id uuid primary key default gen_random_uuid(),
  email text not null,
  password_hash text not null,
  email_verified boolean not null default false,
  suspended boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index accounts_email_key on accounts (lower(email));

create table email_verification_tokens (
  token_hash text primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  expires_at timestamptz not null,
  used_at timestamptz
);

-- A login starts a family; refresh rotates tokens inside it; reuse or logout revokes it.
create table auth_families (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);

create table auth_tokens (
  token_hash text primary key,
  family_id uuid not null references auth_families (id) on delete cascade,
  kind text not null check (kind in ('access', 'refresh')),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index auth_tokens_family on auth_tokens (family_id);

create table projects (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  name text not null,
  api_rpm integer not null default 600 check (api_rpm > 0),
  max_concurrent_sessions integer not null default 10 check (max_concurrent_sessions >= 0),
  revision integer not null default 1,
  suspended boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index projects_account on projects (account_id, created_at);

create table api_keys (
  id uuid primary key default gen_random_uuid(),
  project_id uuid references projects (id) on delete cascade,
  name text not null,
  scopes text[] not null,
  prefix text not null,
  key_hash text not null unique,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index api_keys_project on api_keys (project_id, created_at);
