import type { AppContext } from '../shared/app-context.js';
import { findAgentWebhookTarget } from '../db/repos/agents.js';
import { endpointDelivery, insertDeliveries, type DeliveryInsert } from '../db/repos/webhook-deliveries.js';
import { insertWebhookEvent } from '../db/repos/webhook-events.js';
import { listSubscribedEndpoints } from '../db/repos/webhooks.js';
import type { Tx } from '../shared/sql.js';
import type { DueDelivery } from './queue.js';
import type { TranscriptEntry } from '../contract/events.js';

// The outbox. An event and its deliveries are rows written inside the caller's transaction,
// so they commit (or roll back) with the state change that caused them.

export interface CallEventInput {
  projectId: string;
  agentId: string | null;
  type: 'call.completed' | 'call.failed' | 'call.transferred';
  /** The VoiceSessionInfo document as the API returns it. */
  session: object;
  transcript?: TranscriptEntry[] | null;
  recordingUrl?: string | null;
  /** More fields of `data` beside `session` (call.transferred: `transfer`). */
  extra?: Record<string, unknown>;
}

export interface EmittedEvent {
  eventId: string;
  /** Hand these to `kickDeliveries` after the transaction commits. */
  deliveries: DueDelivery[];
}

/** JSON-safe copy: dates become ISO strings, bigints decimal strings (money is never a float). */
function toJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as T;
}

/**
 * Records a call event: one delivery per active project endpoint subscribed to `type`, plus
 * one to the agent's `webhook_url` when it has one (signed with the agent's secret at send
 * time; transcript and recording URL only when the agent's flags say so).
 */
export async function emitCallEvent(tx: Tx, ctx: AppContext, input: CallEventInput): Promise<EmittedEvent> {
  const now = ctx.clock.now();
  const session = toJson(input.session);
  const extra = toJson(input.extra ?? {});
  const eventId = await insertWebhookEvent(tx, { projectId: input.projectId, type: input.type, data: { session, ...extra }, createdAt: now });
  const endpoints = await listSubscribedEndpoints(tx, input.projectId, input.type);
  const event = { eventId, projectId: input.projectId, eventType: input.type };
  const rows: DeliveryInsert[] = endpoints.map((ep) => endpointDelivery(event, ep));

  if (input.agentId) {
    const agent = await findAgentWebhookTarget(tx, input.projectId, input.agentId);
    if (agent?.webhook_url) {
      const data: Record<string, unknown> = { session, ...extra };
      if (agent.webhook_include_transcript) data.transcript = toJson(input.transcript ?? []);
      if (agent.webhook_include_recording_url) data.recording_url = input.recordingUrl ?? null;
      rows.push({
        ...event,
        kind: 'agent',
        endpointId: null,
        endpointRevision: null,
        agentId: agent.id,
        url: agent.webhook_url,
        data,
      });
    }
  }
  return { eventId, deliveries: await insertDeliveries(tx, ctx, rows) };
}
