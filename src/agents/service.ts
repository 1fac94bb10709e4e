import { randomUUID } from 'node:crypto';
import type { AppContext } from '../shared/app-context.js';
import type { AgentCreate, AgentUpdate } from '../contract/agents.js';
import {
  countAgentCalls,
  getAgentRow,
  insertAgent,
  setAgentSecret,
  toAgentInfo,
  updateAgentRow,
  type AgentFields,
} from '../db/repos/agents.js';
import { lockProjectKeyShare } from '../db/repos/projects.js';
import { outboundUrlProblem } from '../providers/url.js';
import { newWebhookSecret } from '../shared/crypto/tokens.js';
import { errors, type FieldError } from '../shared/errors.js';
import { validatePipeline } from './pipeline.js';
import { assertStorableText } from '../contract/text.js';

// Agent operations shared by both doors (spec 4.1–4.2, contract §4).

const NULLABLE = new Set([
  'display_name', 'greeting', 'tool_webhook_url', 'webhook_url', 'ambience_level', 'ambience_sound', 'dead_air_seconds',
  'idle_warn_seconds', 'idle_hangup_seconds', 'max_duration_seconds', 'max_chars_per_min', 'retention_days', 'insight_config',
  'transfer_timeout_seconds', 'voicemail',
]);

/** Cross-field rules, checked on the agent as it would be after the change. */
function crossFieldErrors(ctx: AppContext, next: AgentFields, sent: Record<string, unknown>): FieldError[] {
  const problems: FieldError[] = [];
  for (const field of ['webhook_url', 'tool_webhook_url'] as const) {
    const value = sent[field];
    if (typeof value !== 'string') continue;
    const problem = outboundUrlProblem(value, ctx.config.ALLOW_PRIVATE_URLS, { allowQuery: true });
    if (problem) problems.push({ loc: ['body', field], msg: `${field} ${problem}`, type: 'value_error' });
  }
  const warn = next.idle_warn_seconds;
  const hangup = next.idle_hangup_seconds;
  if (warn != null && hangup != null && hangup <= warn) {
    const loc = sent.idle_hangup_seconds !== undefined ? 'idle_hangup_seconds' : 'idle_warn_seconds';
    problems.push({ loc: ['body', loc], msg: 'idle_hangup_seconds must be greater than idle_warn_seconds', type: 'value_error' });
  }
  return problems;
}

const sealSecret = (ctx: AppContext, agentId: string, secret: string) => ctx.keyring.encrypt(secret, agentId);

export async function createAgent(ctx: AppContext, projectId: string, body: AgentCreate) {
  assertStorableText(body);
  const { pipeline_config: rawConfig, ...fields } = body;
  const problems = crossFieldErrors(ctx, fields, body);
  if (problems.length) throw errors.validation(problems);
  const id = randomUUID();
  const secret = newWebhookSecret();
  const row = await ctx.sql.begin(async (tx) => {
    // Holding the project row (key share) while checking accounts makes a concurrent deletion
    // of one of those accounts wait for us, and then see the agent that uses it.
    await lockProjectKeyShare(tx, projectId);
    const pipeline_config = await validatePipeline(tx, projectId, body.pipeline_mode, rawConfig);
    return insertAgent(tx, id, projectId, { ...fields, pipeline_config }, sealSecret(ctx, id, secret));
  });
  return { agent: toAgentInfo(row), webhook_secret: secret };
}

export async function updateAgent(ctx: AppContext, projectId: string, agentId: string, body: AgentUpdate) {
  assertStorableText(body);
  const row = await ctx.sql.begin(async (tx) => {
    await lockProjectKeyShare(tx, projectId);
    const current = await getAgentRow(tx, projectId, agentId, { lock: true });
    const changes: AgentFields = {};
    for (const [key, value] of Object.entries(body)) {
      if (value === undefined || key === 'pipeline_config') continue;
      // null clears a nullable field; for any other field it leaves the value as it is.
      if (value === null && !NULLABLE.has(key)) continue;
      (changes as Record<string, unknown>)[key] = value;
    }
    const next = { ...current, ...changes };
    const problems = crossFieldErrors(ctx, next, body);
    if (problems.length) throw errors.validation(problems);
    // Reactivation checks the stored pipeline again: an active agent only ever names live,
    // verified accounts (an inactive one does not hold its accounts against deletion).
    const reactivating = changes.is_active === true && !current.is_active;
    if (body.pipeline_config != null || changes.pipeline_mode !== undefined || reactivating) {
      changes.pipeline_config = await validatePipeline(tx, projectId, next.pipeline_mode, body.pipeline_config ?? current.pipeline_config);
    }
    return updateAgentRow(tx, agentId, changes);
  });
  return toAgentInfo(row);
}

/** Soft delete: the agent becomes inactive (a new version) and past sessions keep pointing at it. */
export async function deleteAgent(ctx: AppContext, projectId: string, agentId: string) {
  return ctx.sql.begin(async (tx) => {
    const current = await getAgentRow(tx, projectId, agentId, { lock: true });
    if (!current.is_active) throw errors.conflict('agent is inactive');
    await updateAgentRow(tx, agentId, { is_active: false });
    return { id: current.id, name: current.name, deleted: true, calls: await countAgentCalls(tx, agentId) };
  });
}

/** A new webhook secret, returned once. The agent's document (and version) does not change. */
export async function rotateAgentSecret(ctx: AppContext, projectId: string, agentId: string) {
  const secret = newWebhookSecret();
  const row = await ctx.sql.begin(async (tx) => {
    const current = await getAgentRow(tx, projectId, agentId, { lock: true });
    if (!current.is_active) throw errors.conflict('agent is inactive');
    await setAgentSecret(tx, agentId, sealSecret(ctx, agentId, secret));
    return current;
  });
  return { agent: toAgentInfo(row), webhook_secret: secret };
}
