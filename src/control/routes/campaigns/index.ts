import { z } from 'zod';
import { createCampaign } from '../../../campaigns/create.js';
import { controlCampaign, getCampaignDetail, listCampaignInfos } from '../../../campaigns/control.js';
import { CampaignDetail, CampaignInfo, CampaignPath, CampaignRowsQuery, CreateCampaignBody, ListCampaignsQuery } from '../../../contract/campaigns.js';
import { defineProjectRoute, type Router } from '../../route.js';

/** Contract §11: batch campaigns on `/v2/voice/campaigns` and the console door. */
export function campaignRoutes(router: Router): void {
  const { ctx } = router;
  const tag = 'campaigns';

  defineProjectRoute(
    router,
    {
      method: 'POST',
      path: '/voice/campaigns',
      operationId: 'createCampaign',
      summary: 'Start a batch campaign of outbound calls (at most 10,000 rows; optional Idempotency-Key)',
      tag,
      scope: 'voice:write',
      body: CreateCampaignBody,
      status: 201,
      response: CampaignInfo,
      errors: [404, 409],
      idempotent: true,
    },
    async ({ project, body }) => createCampaign(ctx, project.projectId, body),
  );

  defineProjectRoute(
    router,
    { method: 'GET', path: '/voice/campaigns', operationId: 'listCampaigns', summary: 'List campaigns with their progress counters, newest first', tag, scope: 'voice:read', query: ListCampaignsQuery, status: 200, response: z.array(CampaignInfo) },
    async ({ project, query }) => listCampaignInfos(ctx, project.projectId, query),
  );

  defineProjectRoute(
    router,
    { method: 'GET', path: '/voice/campaigns/:campaign_id', operationId: 'getCampaign', summary: 'Get a campaign, its counters and a page of its rows with their sessions', tag, scope: 'voice:read', params: CampaignPath, query: CampaignRowsQuery, status: 200, response: CampaignDetail, errors: [404] },
    async ({ project, params, query }) => getCampaignDetail(ctx, project.projectId, params.campaign_id, query),
  );

  const controls = [
    ['pause', 'pauseCampaign', 'Pause a campaign (calls in progress go on)'],
    ['resume', 'resumeCampaign', 'Resume a paused campaign'],
    ['cancel', 'cancelCampaign', 'Cancel a campaign: rows not yet dialled are canceled (calls in progress go on)'],
  ] as const;
  for (const [control, operationId, summary] of controls) {
    defineProjectRoute(
      router,
      { method: 'POST', path: `/voice/campaigns/:campaign_id/${control}`, operationId, summary, tag, scope: 'voice:write', params: CampaignPath, status: 200, response: CampaignInfo, errors: [404, 409] },
      async ({ project, params }) => controlCampaign(ctx, project.projectId, params.campaign_id, control),
    );
  }
}
