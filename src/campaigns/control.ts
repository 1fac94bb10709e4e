import type { CampaignDetail, CampaignInfo, CampaignRowsQuery, CampaignStatus, ListCampaignsQuery } from '../contract/campaigns.js';
import { countCampaignRows, findCampaign, listCampaigns, setCampaignStatus, type CampaignRow } from '../db/repos/campaigns.js';
import { cancelWaitingRows, listRowsPage } from '../db/repos/campaign-rows.js';
import type { AppContext } from '../shared/app-context.js';
import { errors } from '../shared/errors.js';
import { toCampaignInfo, toRowInfo } from './present.js';
import type { z } from 'zod';

// Reads and the three controls. Pause stops new dials (live calls go on); resume starts them
// again; cancel also cancels every row not yet dialled. Each waits for a tick in progress (the
// campaign's row lock). Repeating a control is a no-op; a finished campaign answers 409.

export const campaignNotFound = () => errors.notFound('campaign not found');

async function withCounters(ctx: AppContext, rows: CampaignRow[]): Promise<CampaignInfo[]> {
  const counters = await countCampaignRows(ctx.sql, rows.map((r) => r.id));
  return rows.map((r) => toCampaignInfo(r, counters.get(r.id)!));
}

export async function listCampaignInfos(ctx: AppContext, projectId: string, q: z.output<typeof ListCampaignsQuery>): Promise<CampaignInfo[]> {
  return withCounters(ctx, await listCampaigns(ctx.sql, projectId, q));
}

export async function getCampaignDetail(ctx: AppContext, projectId: string, id: string, q: z.output<typeof CampaignRowsQuery>): Promise<CampaignDetail> {
  const c = await findCampaign(ctx.sql, projectId, id);
  if (!c) throw campaignNotFound();
  const [info] = await withCounters(ctx, [c]);
  const rows = await listRowsPage(ctx.sql, c.id, q);
  return { ...info, rows: rows.map((r) => toRowInfo(r, c.timezone)) };
}

type Control = 'pause' | 'resume' | 'cancel';

const RULES: Record<Control, { from: CampaignStatus[]; to: CampaignStatus }> = {
  pause: { from: ['running'], to: 'paused' },
  resume: { from: ['paused'], to: 'running' },
  cancel: { from: ['running', 'paused'], to: 'canceled' },
};

export async function controlCampaign(ctx: AppContext, projectId: string, id: string, control: Control): Promise<CampaignInfo> {
  const rule = RULES[control];
  const result = await ctx.sql.begin(async (tx) => {
    const now = ctx.clock.now();
    const moved = await setCampaignStatus(tx, projectId, id, rule.from, rule.to, now);
    if (!moved) throw campaignNotFound();
    const { row, changed } = moved;
    if (!changed && row.status !== rule.to) throw errors.conflict(`campaign is ${row.status}`);
    if (changed && control === 'cancel') await cancelWaitingRows(tx, id, now);
    return row;
  });
  ctx.log.info({ campaign_id: id, project_id: projectId, status: result.status }, `campaign ${control}`);
  const [info] = await withCounters(ctx, [result]);
  return info;
}
