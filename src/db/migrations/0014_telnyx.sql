-- A second carrier: Telnyx (Call Control). Its webhooks are signed with the account's Ed25519
-- key (public_key, not a secret, shown in the API); the API key is sealed like Twilio's token.
-- connection_id is the Call Control application we create so that its webhook is ours.
alter table carriers drop constraint carriers_kind_check;
alter table carriers add constraint carriers_kind_check check (kind in ('twilio', 'telnyx'));
alter table carriers alter column account_sid drop not null;
alter table carriers
  add column public_key text,
  add column connection_id text,
  add constraint carriers_kind_identity check (
    (kind = 'twilio' and account_sid is not null) or (kind = 'telnyx' and public_key is not null));
