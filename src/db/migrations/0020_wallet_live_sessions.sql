-- Issue 21: admission counted the project's live sessions under the wallet row lock, a scan that
-- grew with the live sessions while every admission of the project waited for it.
-- wallets.live_sessions is the number of the project's UNSETTLED sessions, kept by triggers in the
-- transaction that inserts, settles or deletes the session, whatever code path (or older node)
-- runs it. Unsettled ⊇ live (a created session past its token window stays unsettled until the
-- sweeper settles it), so the counter is an upper bound of the live count: admission trusts it
-- below the limit and counts exactly only at or above it (src/sessions/live-limit.ts).
-- Lock order is unchanged: admission locks the wallet row before inserting, settlement locks the
-- session row and then the wallet row (as releaseAndCharge already did).
alter table wallets add column live_sessions integer not null default 0;

update wallets w set live_sessions = (
  select count(*) from voice_sessions s where s.project_id = w.project_id and s.settled_at is null);

create function voice_sessions_live_counter() returns trigger language plpgsql as $$
begin
  if tg_op <> 'INSERT' and old.settled_at is null then
    update wallets set live_sessions = live_sessions - 1 where project_id = old.project_id;
  end if;
  if tg_op <> 'DELETE' and new.settled_at is null then
    update wallets set live_sessions = live_sessions + 1 where project_id = new.project_id;
  end if;
  return null;
end $$;

create trigger voice_sessions_live_insert after insert on voice_sessions
  for each row when (new.settled_at is null) execute function voice_sessions_live_counter();
-- Only an update that settles (or unsettles, or moves) a session touches the wallet row.
create trigger voice_sessions_live_update after update of settled_at, project_id on voice_sessions
  for each row when ((old.settled_at is null) is distinct from (new.settled_at is null) or old.project_id is distinct from new.project_id)
  execute function voice_sessions_live_counter();
create trigger voice_sessions_live_delete after delete on voice_sessions
  for each row when (old.settled_at is null) execute function voice_sessions_live_counter();

-- A wallet created after its project has sessions (fixtures; admission needs a wallet) starts right.
create function wallets_live_sessions_init() returns trigger language plpgsql as $$
begin
  new.live_sessions := (select count(*) from voice_sessions s where s.project_id = new.project_id and s.settled_at is null);
  return new;
end $$;

create trigger wallets_live_sessions_init before insert on wallets
  for each row execute function wallets_live_sessions_init();
