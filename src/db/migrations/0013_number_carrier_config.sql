-- Numbers configured at the carrier (contract §11): binding a number to an agent points the
-- number's voice webhook at us; unbinding or deleting it puts back what the carrier had before.
alter table carrier_numbers
  -- The carrier's own id of the number (Twilio PN sid, Telnyx phone number id), once looked up.
  add column carrier_number_ref text,
  -- What the number was configured with before we changed it (kept while it is bound; null when
  -- we never changed it or have put it back). Written before the change is requested, so a crash
  -- in between never loses it.
  add column carrier_previous jsonb,
  add column carrier_configured boolean not null default false,
  -- Why the last attempt to configure or restore the number failed (a sentence, no secrets).
  add column carrier_error text,
  add column carrier_synced_at timestamptz;
