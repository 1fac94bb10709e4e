-- Voicemail (issue 20, contract §11). Agents say what an outbound call does when a machine answers
-- (voicemail: {action: hangup | leave_message, message?}; null: no answering-machine detection).
-- A session keeps the carrier's answering-machine verdict (answered_by: human, machine_start,
-- machine_end_beep, fax, unknown, ...), so a media node that starts the call after the verdict
-- came still acts on it.
alter table agents add column voicemail jsonb;
alter table voice_sessions add column answered_by text;
