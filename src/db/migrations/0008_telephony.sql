-- Telephony: phone calls through the customer's own Twilio carrier (outbound and inbound).

-- A phone session remembers its carrier, its two numbers and the carrier's call. None of these
-- are part of VoiceSessionInfo (spec 2.6); phone numbers stay out of responses and logs.
alter table voice_sessions
  add column carrier_id uuid references carriers (id) on delete set null,
  add column from_e164 text,
  add column to_e164 text,
  -- Twilio's CallSid, once known (the Calls.json answer, a status callback or the stream's start).
  add column carrier_call_sid text,
  -- Outbound: set, in its own committed transaction, just before Calls.json is requested. A dial
  -- job that finds it set never requests again (a retried job must not place a second call).
  add column dial_started_at timestamptz,
  -- Outbound: why the dial could not be placed or confirmed (a sentence, no secrets).
  add column dial_error text,
  -- The last CallStatus the carrier reported (queued, ringing, in-progress, completed, busy, ...).
  add column carrier_status text,
  add column carrier_status_at timestamptz;

-- Status callbacks name the call; Twilio's CallSid is unique per account.
create unique index voice_sessions_carrier_call on voice_sessions (carrier_id, carrier_call_sid)
  where carrier_call_sid is not null;
-- The telephony sweeper: dials never queued or never confirmed.
create index voice_sessions_outbound_pending on voice_sessions (created_at)
  where direction = 'outbound' and status = 'created' and carrier_call_sid is null;

-- Idempotency-Key of outbound calls (contract §8): remembered 24 h per project. The body hash
-- tells a retry (same body: the first session again) from a misuse (another body: 422).
create table outbound_idempotency_keys (
  project_id uuid not null references projects (id) on delete cascade,
  key text not null,
  body_sha256 text not null,
  session_id uuid not null references voice_sessions (id) on delete cascade,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  primary key (project_id, key)
);
create index outbound_idempotency_keys_expiry on outbound_idempotency_keys (expires_at);
