-- Public routes that cannot be squatted (contract §11): each publishable key has its own
-- concurrency budget (never above its project's, checked by the API), a connect window after
-- which an unused browser session ends and gives back its slots and hold, and a maximum call
-- duration that sizes the hold. Existing keys get the defaults.
alter table publishable_keys
  add column max_concurrent_sessions integer not null default 5 check (max_concurrent_sessions >= 0),
  add column connect_window_seconds integer not null default 15 check (connect_window_seconds between 5 and 60),
  add column max_duration_seconds integer not null default 300 check (max_duration_seconds between 1 and 14400);

-- The key a browser session was started with: its budget counts the key's live sessions.
alter table voice_sessions add column publishable_key_id uuid references publishable_keys (id) on delete set null;
create index voice_sessions_live_by_key on voice_sessions (publishable_key_id) where settled_at is null and publishable_key_id is not null;
