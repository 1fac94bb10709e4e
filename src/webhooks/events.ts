import type { AppContext } from '../shared/app-context.js';
import { insertDeliveries, type DeliveryInsert, type Tx } from '../db/repos/webhook-deliveries.js';
import type { DueDelivery } from './queue.js';
import type { EventType, TranscriptEntry } from '../contract/events.js';

// The outbox. An event and its deliveries are rows written inside the caller's transaction,
// so they commit (or roll back) with the state change that caused them.

export interface CallEventInput {
  projectId: string;
  agentId: string | null;
  type: 'call.completed' | 'call.failed';
  /** The VoiceSessionInfo document as the API returns it. */
  session: object;
  transcript?: TranscriptEntry[] | null;
  recordingUrl?: string | null;
}

export interface EmittedEvent {
  eventId: string;
  /** Hand these to `kickDeliveries` after the transaction commits. */
  deliveries: DueDelivery[];
}

/** JSON-safe copy: dates become ISO strings, bigints decimal strings (money is never a float). */
function toJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))) as T;
}

/**
 * Records a call event: one delivery per active project endpoint subscribed to `type`, plus
 * one to the agent's `webhook_url` when it has one (signed with the agent's secret at send
 * time; transcript and recording URL only when the agent's flags say so).
 */
export async function emitCallEvent(tx: Tx, ctx: AppContext, input: CallEventInput): Promise<EmittedEvent> {
  const now = ctx.clock.now();
  const session = toJson(input.session);
  const [event] = await tx`
    insert into webhook_events (project_id, type, data, created_at)
    values (${input.projectId}, ${input.type}, ${tx.json({ session } as never)}, ${now}) returning id`;

  // FOR SHARE: a concurrent disable waits for this transaction and then cancels these rows too.
  const endpoints = await tx`
    select id, url, revision from webhook_endpoints
    where project_id = ${input.projectId} and status = 'active'
      and (cardinality(event_types) = 0 or ${input.type} = any(event_types))
    order by created_at
    for share`;
  const rows: DeliveryInsert[] = endpoints.map((ep) => ({
    eventId: event.id,
    projectId: input.projectId,
    eventType: input.type,
    kind: 'endpoint',
    endpointId: ep.id,
    endpointRevision: ep.revision,
    agentId: null,
    url: ep.url,
    data: null,
  }));

  if (input.agentId) {
    const [agent] = await tx`
      select id, webhook_url, webhook_include_transcript, webhook_include_recording_url from agents
      where id = ${input.agentId} and project_id = ${input.projectId}`;
    if (agent?.webhook_url) {
      const data: Record<string, unknown> = { session };
      if (agent.webhook_include_transcript) data.transcript = toJson(input.transcript ?? []);
      if (agent.webhook_include_recording_url) data.recording_url = input.recordingUrl ?? null;
      rows.push({
        eventId: event.id,
        projectId: input.projectId,
        eventType: input.type,
        kind: 'agent',
        endpointId: null,
        endpointRevision: null,
        agentId: agent.id,
        url: agent.webhook_url,
        data,
      });
    }
  }
  return { eventId: event.id as string, deliveries: await insertDeliveries(tx, ctx, rows) };
}
