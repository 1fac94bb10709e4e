import type { RequestOptions } from '../http.js';
import { paginate, type ListOptions } from '../paginate.js';
import type { Campaign, CampaignCreate, CampaignDetail, CampaignListQuery, CampaignRow } from '../types.js';
import { Resource, seg } from './base.js';

/** Options of `Campaigns.get`: one page of the campaign's rows (by index), optionally of one state. */
export interface CampaignGetOptions extends RequestOptions {
  state?: CampaignRow['state'];
  limit?: number;
  offset?: number;
}

/** Batch campaigns of outbound calls (contract §11); each row becomes an outbound session. */
export class Campaigns extends Resource {
  list(filters: CampaignListQuery = {}, opts?: ListOptions): AsyncGenerator<Campaign, void, undefined> {
    return this.paged<Campaign>('/voice/campaigns', { ...filters }, opts);
  }
  /** Starts a campaign (at most 10,000 rows); with an idempotency key a repeat answers the first campaign and is retried safely. */
  create(body: CampaignCreate, opts?: RequestOptions): Promise<Campaign> {
    return this.call('POST', '/voice/campaigns', opts, body);
  }
  /** The campaign, its counters and one page of its rows with their sessions. */
  get(campaignId: string, opts: CampaignGetOptions = {}): Promise<CampaignDetail> {
    const { state, limit, offset, ...rest } = opts;
    return this.call('GET', `/voice/campaigns/${seg(campaignId)}`, rest, undefined, { state, limit, offset });
  }
  /** Every row of the campaign (optionally of one state), fetched page by page. */
  rows(campaignId: string, filters: { state?: CampaignRow['state'] } = {}, opts?: ListOptions): AsyncGenerator<CampaignRow, void, undefined> {
    const path = `/voice/campaigns/${seg(campaignId)}`;
    return paginate<CampaignRow>(async (q, o) => (await this.call<CampaignDetail>('GET', path, o, undefined, q)).rows, { ...filters }, opts);
  }
  /** Calls in progress go on; no new row is dialled until `resume`. */
  pause(campaignId: string, opts?: RequestOptions): Promise<Campaign> {
    return this.call('POST', `/voice/campaigns/${seg(campaignId)}/pause`, opts);
  }
  resume(campaignId: string, opts?: RequestOptions): Promise<Campaign> {
    return this.call('POST', `/voice/campaigns/${seg(campaignId)}/resume`, opts);
  }
  /** Rows not yet dialled are canceled; calls in progress go on. */
  cancel(campaignId: string, opts?: RequestOptions): Promise<Campaign> {
    return this.call('POST', `/voice/campaigns/${seg(campaignId)}/cancel`, opts);
  }
}
