-- Transfer to a person (issue 20, contract §11). Agents name the people a call may be handed to
-- (transfer_destinations, at most 20) and how long a warm transfer lets the person's phone ring
-- (transfer_timeout_seconds; null: 30 s). A session handed over records when and to whom: settlement
-- bills up to transferred_at and emits call.transferred with the transfer.
alter table agents add column transfer_destinations jsonb not null default '[]'::jsonb;
alter table agents add column transfer_timeout_seconds integer;
alter table voice_sessions add column transferred_at timestamptz;
alter table voice_sessions add column transfer jsonb;
