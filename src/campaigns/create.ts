import type { CampaignInfo, CreateCampaignBody } from '../contract/campaigns.js';
import { findAgentRow } from '../db/repos/agents.js';
import { insertCampaign } from '../db/repos/campaigns.js';
import { insertCampaignRows } from '../db/repos/campaign-rows.js';
import { findProjectNumber } from '../db/repos/carrier-numbers.js';
import { checkVariables } from '../sessions/admission.js';
import type { AppContext } from '../shared/app-context.js';
import { errors, sessionErrors, type FieldError } from '../shared/errors.js';
import { toCampaignInfo } from './present.js';

// POST /v2/voice/campaigns: checks what can be checked once for every row (the agent, its
// declared variables on each row, the `from` pool), then stores the campaign and its rows in
// one transaction, all queued. Wallet, concurrency, providers and the carrier's state are the
// admission's, per call: they can change while the campaign runs.

/** At most this many field errors are listed (10,000 bad rows would make a 10,000-entry 422). */
const MAX_FIELD_ERRORS = 50;

export async function createCampaign(ctx: AppContext, projectId: string, body: CreateCampaignBody): Promise<CampaignInfo> {
  const agent = await findAgentRow(ctx.sql, projectId, body.agent_id);
  if (!agent) throw sessionErrors.agentNotFound();
  if (!agent.is_active) throw sessionErrors.agentInactive();

  const problems: FieldError[] = [];
  for (const [i, e164] of body.from_numbers.entries()) {
    const found = await findProjectNumber(ctx.sql, projectId, e164);
    if (!found || !found.number.outbound_enabled) {
      problems.push({ loc: ['body', 'from_numbers', i], msg: 'must be a number of the project with outbound calls enabled', type: 'value_error' });
    }
  }
  for (const [i, row] of body.rows.entries()) {
    if (problems.length >= MAX_FIELD_ERRORS) break;
    for (const p of checkVariables(agent.variables ?? [], row.variables)) problems.push({ ...p, loc: ['body', 'rows', i, ...p.loc.slice(1)] });
  }
  if (problems.length) throw errors.validation(problems.slice(0, MAX_FIELD_ERRORS));

  const now = ctx.clock.now();
  const campaign = await ctx.sql.begin(async (tx) => {
    const c = await insertCampaign(tx, {
      project_id: projectId,
      name: body.name,
      agent_id: body.agent_id,
      from_numbers: body.from_numbers,
      max_concurrent_calls: body.max_concurrent_calls,
      timezone: body.timezone,
      calling_windows: body.calling_windows,
      max_attempts: body.retry.max_attempts,
      retry_spacing_seconds: body.retry.min_spacing_seconds,
      retry_on: body.retry.on,
      max_duration_seconds: body.max_duration_seconds ?? null,
      record: body.record ?? null,
      store_transcript: body.store_transcript ?? null,
      created_at: now,
    });
    await insertCampaignRows(
      tx,
      c.id,
      body.rows.map((r, position) => ({ position, to: r.to, timezone: r.timezone ?? null, variables: r.variables, metadata: r.metadata ?? null })),
      now,
    );
    return c;
  });
  ctx.log.info({ campaign_id: campaign.id, project_id: projectId, rows: body.rows.length }, 'campaign created');
  const n = body.rows.length;
  return toCampaignInfo(campaign, { total: n, queued: n, in_progress: 0, retrying: 0, completed: 0, failed: 0, canceled: 0 });
}
