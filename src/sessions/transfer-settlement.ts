import type { AppContext } from '../shared/app-context.js';
import { handOverOf, type HandOver } from '../db/repos/session-transfers.js';
import type { SessionInfo, SessionRow } from '../db/repos/voice-sessions.js';
import { emitCallEvent, type EmittedEvent } from '../webhooks/index.js';
import type { Tx } from '../shared/sql.js';

// Settling a call that was handed to a person (contract §11): whatever ended the media (our
// close, the carrier's stop, a crash), the session is `completed` / `transferred`, it is billed
// up to the hand-over, and a `call.transferred` event joins call.completed in the outbox.

/** The hand-over of an active session that settlement must honour, or null. */
export function settledHandOver(row: SessionRow): HandOver | null {
  return row.status === 'active' && row.media_connected_at !== null ? handOverOf(row) : null;
}

/** `call.transferred`: data {session, transfer: {destination, e164, mode, transferred_at}}. */
export async function emitTransferred(tx: Tx, ctx: AppContext, row: SessionRow, session: SessionInfo, handOver: HandOver): Promise<EmittedEvent> {
  return emitCallEvent(tx, ctx, {
    projectId: row.project_id,
    agentId: row.agent_id,
    type: 'call.transferred',
    session,
    extra: { transfer: { ...handOver.transfer, transferred_at: handOver.at.toISOString() } },
  });
}
