import type { Tx } from '../../shared/sql.js';

// webhook_events: the outbox's events; their deliveries are rows of webhook_deliveries.

/** Records an event (inside the caller's transaction, with its deliveries); returns its id. */
export async function insertWebhookEvent(tx: Tx, e: { projectId: string; type: string; data: unknown; createdAt: Date }): Promise<string> {
  const [event] = await tx<{ id: string }[]>`
    insert into webhook_events (project_id, type, data, created_at)
    values (${e.projectId}, ${e.type}, ${tx.json(e.data as never)}, ${e.createdAt}) returning id`;
  return event.id;
}
