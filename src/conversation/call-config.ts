import type { AppContext } from '../shared/app-context.js';
import type { SessionRow } from '../db/repos/voice-sessions.js';
import { getAgentAsRun, type AgentAsRun } from '../db/repos/agent-versions.js';
import { findLiveAccountEndpoint, getProviderApiKey } from '../db/repos/provider-accounts.js';
import { PipelineUnavailable } from '../media/pipelines.js';
import { isProviderError } from '../providers/errors.js';
import { createAdapters, DEFAULT_ENDPOINTING_MS, type Credentials, type RegistryOptions, type StageAdapters, type StageConfig } from '../providers/registry.js';
import { renderTemplate } from './prompt.js';
import type { TransferDestination } from '../contract/agents.js';

// Everything a call needs, read once when its media connects: the agent as it was at the
// version the session was admitted with (agent_versions), the prompt and greeting rendered
// with the session's variables, and an adapter per stage with the account's key, which is
// decrypted here and lives only in this call's memory.

export interface AgentTool {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

export interface CallAgent {
  id: string;
  pipelineMode: 'cascade' | 'realtime';
  prompt: string;
  greeting: string | null;
  language: string;
  tools: AgentTool[];
  toolWebhookUrl: string | null;
  backchannel: boolean;
  /** The caller may talk over the greeting (interruptible_greeting). */
  interruptibleGreeting: boolean;
  canSendDtmf: boolean;
  ambienceSound: string | null;
  ambienceLevel: number | null;
  deadAirSeconds: number | null;
  idleWarnSeconds: number | null;
  idleHangupSeconds: number | null;
  maxCharsPerMin: number | null;
  /** People transfer_call may hand the call to; empty (no tool) on web sessions (contract §11). */
  transferDestinations?: TransferDestination[];
  transferTimeoutSeconds?: number | null;
  /** What an outbound call does when a machine answers, the message rendered; null otherwise (contract §11). */
  voicemail?: { action: 'hangup' | 'leave_message'; message: string | null } | null;
}

export interface CallConfig {
  sessionId: string;
  projectId: string;
  /** The session's direction: `web`, `outbound` or `inbound`. */
  direction: string;
  sampleRateIn: number;
  sampleRateOut: number;
  maxDurationSeconds: number;
  /** Silence that ends the caller's turn: the stage's endpointing_ms (stt or realtime). */
  endpointingMs: number;
  agent: CallAgent;
  adapters: StageAdapters;
  /** Account id per stage (cache keys; never the key itself). */
  accountIds: Record<string, string>;
}

/** Builds the adapters for a call (tests and the turn benchmark inject in-process ones). */
export type AdapterFactory = (stages: StageConfig, credentials: Credentials) => StageAdapters;

async function loadAgentAsRun(ctx: AppContext, row: SessionRow): Promise<AgentAsRun> {
  if (!row.agent_id) throw new PipelineUnavailable('session has no agent');
  const agent = await getAgentAsRun(ctx.sql, row.agent_id, row.agent_version);
  if (!agent) throw new PipelineUnavailable('agent not found');
  return agent;
}

export async function loadCallConfig(
  ctx: AppContext,
  row: SessionRow,
  opts: { adapterFactory?: AdapterFactory; registry?: RegistryOptions } = {},
): Promise<CallConfig> {
  const doc = await loadAgentAsRun(ctx, row);
  const declared = doc.variables.map((v) => (v as { name: string }).name);
  const values = row.variables ?? {};
  const agent: CallAgent = {
    id: row.agent_id!,
    pipelineMode: row.pipeline_mode === 'realtime' ? 'realtime' : 'cascade',
    prompt: renderTemplate(doc.prompt, declared, values),
    greeting: doc.greeting ? renderTemplate(doc.greeting, declared, values) : null,
    language: row.language,
    tools: doc.tools as AgentTool[],
    toolWebhookUrl: doc.tool_webhook_url,
    backchannel: doc.backchannel,
    interruptibleGreeting: doc.interruptible_greeting,
    canSendDtmf: doc.can_send_dtmf,
    ambienceSound: doc.ambience_sound,
    ambienceLevel: doc.ambience_level,
    deadAirSeconds: doc.dead_air_seconds,
    idleWarnSeconds: doc.idle_warn_seconds,
    idleHangupSeconds: doc.idle_hangup_seconds,
    maxCharsPerMin: doc.max_chars_per_min,
    transferDestinations: row.direction === 'web' ? [] : doc.transfer_destinations,
    transferTimeoutSeconds: doc.transfer_timeout_seconds,
    voicemail:
      doc.voicemail && row.direction === 'outbound'
        ? { action: doc.voicemail.action, message: doc.voicemail.message ? renderTemplate(doc.voicemail.message, declared, values) : null }
        : null,
  };

  const snapshot = row.pipeline_snapshot as Record<string, Record<string, unknown> & { account_id: string; provider: string; endpointing_ms?: number }>;
  const credentials: Credentials = {};
  for (const [stage, s] of Object.entries(snapshot)) {
    const account = await findLiveAccountEndpoint(ctx.sql, s.account_id);
    if (!account || account.status !== 'verified') throw new PipelineUnavailable(`the ${stage} account is not verified`);
    const apiKey = s.provider === 'local' ? null : await getProviderApiKey(ctx, s.account_id);
    credentials[stage as keyof Credentials] = { apiKey, baseUrl: account.base_url };
  }
  let adapters: StageAdapters;
  try {
    adapters = (opts.adapterFactory ?? ((st, cr) => createAdapters(st, cr, opts.registry)))(snapshot, credentials);
  } catch (err) {
    if (isProviderError(err)) throw new PipelineUnavailable(err.message);
    throw err;
  }
  if (agent.pipelineMode === 'cascade' && !(adapters.stt && adapters.llm && adapters.tts)) throw new PipelineUnavailable('cascade pipeline needs stt, llm and tts');
  if (agent.pipelineMode === 'realtime' && !adapters.realtime) throw new PipelineUnavailable('realtime pipeline needs a realtime stage');
  return {
    sessionId: row.id,
    projectId: row.project_id,
    direction: row.direction,
    sampleRateIn: row.sample_rate_in,
    sampleRateOut: row.sample_rate_out,
    maxDurationSeconds: row.max_duration_seconds,
    endpointingMs: (snapshot.stt ?? snapshot.realtime)?.endpointing_ms ?? DEFAULT_ENDPOINTING_MS,
    agent,
    adapters,
    accountIds: Object.fromEntries(Object.entries(snapshot).map(([stage, s]) => [stage, s.account_id])),
  };
}
