-- Dead-letter replay: a replay is a new delivery row that sends the original's webhook-id, so a
-- receiver that deduplicates on webhook-id sees the same message. Null = the row's own id.
alter table webhook_deliveries add column webhook_id uuid;
create index webhook_deliveries_webhook_id on webhook_deliveries (webhook_id) where webhook_id is not null;
-- The console's delivery log, newest first per project.
create index webhook_deliveries_project_recent on webhook_deliveries (project_id, created_at desc, id desc);
