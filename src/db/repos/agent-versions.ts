import { z } from 'zod';
import { AgentInfo } from '../../contract/agents.js';
import type { Db } from '../../shared/sql.js';

// Reading back the agent a session ran: agent_versions holds each version's document, which is
// the API's AgentInfo as clients saw it, so it is read with AgentInfo's own field rules.

const info = AgentInfo.shape;

/**
 * The fields a call runs on. A field that breaks its AgentInfo rule (or is missing) reads as the
 * default a new agent gets (the prompt as empty), so an agent stored under older rules still runs.
 */
const AgentAsRun = z.object({
  prompt: info.prompt.catch(''),
  greeting: info.greeting.catch(null),
  variables: info.variables.catch([]),
  tools: info.tools.catch([]),
  tool_webhook_url: info.tool_webhook_url.catch(null),
  backchannel: info.backchannel.catch(true),
  interruptible_greeting: info.interruptible_greeting.catch(true),
  can_send_dtmf: info.can_send_dtmf.catch(false),
  ambience_sound: info.ambience_sound.catch(null),
  ambience_level: info.ambience_level.catch(null),
  dead_air_seconds: info.dead_air_seconds.catch(null),
  idle_warn_seconds: info.idle_warn_seconds.catch(null),
  idle_hangup_seconds: info.idle_hangup_seconds.catch(null),
  max_chars_per_min: info.max_chars_per_min.catch(null),
  transfer_destinations: info.transfer_destinations.catch([]),
  transfer_timeout_seconds: info.transfer_timeout_seconds.catch(null),
  voicemail: info.voicemail.catch(null),
});
export type AgentAsRun = z.output<typeof AgentAsRun>;
const AS_RUN_COLUMNS = Object.keys(AgentAsRun.shape);

/** The agent as it was at `version`; an agent written without a version row (older data) as it is now. */
export async function getAgentAsRun(db: Db, agentId: string, version: number | null): Promise<AgentAsRun | undefined> {
  if (version !== null) {
    const [v] = await db<{ document: unknown }[]>`select document from agent_versions where agent_id = ${agentId} and version = ${version}`;
    if (v) return AgentAsRun.parse(v.document);
  }
  const [row] = await db`select ${db(AS_RUN_COLUMNS)} from agents where id = ${agentId}`;
  return row ? AgentAsRun.parse(row) : undefined;
}

export interface VersionCallSettings {
  /** Days to keep the call's transcript; null when the version sets none (or breaks the rule). */
  retention_days: number | null;
  /** As stored: the analysis parses it (InsightConfig) and records a failure when it does not parse. */
  insight_config: unknown;
}

/** What a version says about a finished call's transcript and insights; undefined when there is no such version. */
export async function getVersionCallSettings(db: Db, agentId: string, version: number): Promise<VersionCallSettings | undefined> {
  const [row] = await db<{ retention_days: unknown; insight_config: unknown }[]>`
    select document->'retention_days' as retention_days, document->'insight_config' as insight_config
    from agent_versions where agent_id = ${agentId} and version = ${version}`;
  if (!row) return undefined;
  return { retention_days: info.retention_days.catch(null).parse(row.retention_days), insight_config: row.insight_config ?? null };
}
