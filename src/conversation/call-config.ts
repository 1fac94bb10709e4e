import type { AppContext } from '../shared/app-context.js';
import type { SessionRow } from '../db/repos/voice-sessions.js';
import { getProviderApiKey } from '../db/repos/provider-accounts.js';
import { PipelineUnavailable } from '../media/pipelines.js';
import { isProviderError } from '../providers/errors.js';
import { createAdapters, type Credentials, type RegistryOptions, type StageAdapters, type StageConfig } from '../providers/registry.js';
import { renderTemplate } from './prompt.js';

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
  canSendDtmf: boolean;
  ambienceSound: string | null;
  ambienceLevel: number | null;
  deadAirSeconds: number | null;
  idleWarnSeconds: number | null;
  idleHangupSeconds: number | null;
  maxCharsPerMin: number | null;
}

export interface CallConfig {
  sessionId: string;
  projectId: string;
  sampleRateIn: number;
  sampleRateOut: number;
  maxDurationSeconds: number;
  agent: CallAgent;
  adapters: StageAdapters;
  /** Account id per stage (cache keys; never the key itself). */
  accountIds: Record<string, string>;
}

/** Builds the adapters for a call (tests and the turn benchmark inject in-process ones). */
export type AdapterFactory = (stages: StageConfig, credentials: Credentials) => StageAdapters;

type AgentDoc = Record<string, unknown>;

async function loadAgentDoc(ctx: AppContext, row: SessionRow): Promise<AgentDoc> {
  if (!row.agent_id) throw new PipelineUnavailable('session has no agent');
  if (row.agent_version !== null) {
    const [v] = await ctx.sql<{ document: AgentDoc }[]>`
      select document from agent_versions where agent_id = ${row.agent_id} and version = ${row.agent_version}`;
    if (v) return v.document;
  }
  // Agents written without a version row (older data) run as they are now.
  const [a] = await ctx.sql<AgentDoc[]>`select * from agents where id = ${row.agent_id}`;
  if (!a) throw new PipelineUnavailable('agent not found');
  return a;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export async function loadCallConfig(
  ctx: AppContext,
  row: SessionRow,
  opts: { adapterFactory?: AdapterFactory; registry?: RegistryOptions } = {},
): Promise<CallConfig> {
  const doc = await loadAgentDoc(ctx, row);
  const declared = Array.isArray(doc.variables) ? (doc.variables as { name: string }[]).map((v) => v.name) : [];
  const values = row.variables ?? {};
  const greeting = str(doc.greeting);
  const agent: CallAgent = {
    id: row.agent_id!,
    pipelineMode: row.pipeline_mode === 'realtime' ? 'realtime' : 'cascade',
    prompt: renderTemplate(str(doc.prompt) ?? '', declared, values),
    greeting: greeting ? renderTemplate(greeting, declared, values) : null,
    language: row.language,
    tools: Array.isArray(doc.tools) ? (doc.tools as AgentTool[]) : [],
    toolWebhookUrl: str(doc.tool_webhook_url),
    backchannel: doc.backchannel !== false,
    canSendDtmf: doc.can_send_dtmf === true,
    ambienceSound: str(doc.ambience_sound),
    ambienceLevel: int(doc.ambience_level),
    deadAirSeconds: int(doc.dead_air_seconds),
    idleWarnSeconds: int(doc.idle_warn_seconds),
    idleHangupSeconds: int(doc.idle_hangup_seconds),
    maxCharsPerMin: int(doc.max_chars_per_min),
  };

  const snapshot = row.pipeline_snapshot as Record<string, Record<string, unknown> & { account_id: string; provider: string }>;
  const credentials: Credentials = {};
  for (const [stage, s] of Object.entries(snapshot)) {
    const [account] = await ctx.sql<{ base_url: string | null; status: string }[]>`
      select base_url, status from provider_accounts where id = ${s.account_id} and deleted_at is null`;
    if (!account || account.status !== 'verified') throw new PipelineUnavailable(`the ${stage} account is not verified`);
    const apiKey = s.provider === 'local' ? null : await getProviderApiKey(ctx, s.account_id);
    credentials[stage as keyof Credentials] = { apiKey, baseUrl: account.base_url };
  }
  let adapters: StageAdapters;
  try {
    adapters = (opts.adapterFactory ?? ((st, cr) => createAdapters(st, cr, opts.registry)))(snapshot as StageConfig, credentials);
  } catch (err) {
    if (isProviderError(err)) throw new PipelineUnavailable(err.message);
    throw err;
  }
  if (agent.pipelineMode === 'cascade' && !(adapters.stt && adapters.llm && adapters.tts)) throw new PipelineUnavailable('cascade pipeline needs stt, llm and tts');
  if (agent.pipelineMode === 'realtime' && !adapters.realtime) throw new PipelineUnavailable('realtime pipeline needs a realtime stage');
  return {
    sessionId: row.id,
    projectId: row.project_id,
    sampleRateIn: row.sample_rate_in,
    sampleRateOut: row.sample_rate_out,
    maxDurationSeconds: row.max_duration_seconds,
    agent,
    adapters,
    accountIds: Object.fromEntries(Object.entries(snapshot).map(([stage, s]) => [stage, s.account_id])),
  };
}
