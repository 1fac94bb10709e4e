-- Agents: whether the caller can talk over the greeting (contract §11, docs/conversation.md).
-- Existing agents get the default, true: the greeting is interrupted like an answer.
alter table agents add column interruptible_greeting boolean not null default true;
