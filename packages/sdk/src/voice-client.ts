import { Transport, type ClientOptions, type RequestOptions } from './http.js';
import { connectMedia, type MediaConnection, type MediaOptions } from './media.js';
import { Agents } from './resources/agents.js';
import { Campaigns } from './resources/campaigns.js';
import { seg } from './resources/base.js';
import { Sessions } from './resources/sessions.js';
import { Webhooks } from './resources/webhooks.js';
import type { CatalogueEntry } from './types.js';

export interface VoiceClientOptions extends ClientOptions {
  /** Project API key (`vk_...`), sent as `X-Api-Key`. For servers only, never a browser bundle. */
  apiKey: string;
}

/** The machine door (`/v2`, project API key). */
export class VoiceClient {
  readonly agents: Agents;
  readonly sessions: Sessions;
  readonly campaigns: Campaigns;
  private readonly http: Transport;

  constructor(opts: VoiceClientOptions) {
    if (!opts.apiKey) throw new TypeError('VoiceClient needs an apiKey');
    const headers = { 'x-api-key': opts.apiKey };
    this.http = new Transport(opts, { headers: async () => headers });
    this.agents = new Agents(this.http, '/v2');
    this.sessions = new Sessions(this.http, '/v2');
    this.campaigns = new Campaigns(this.http, '/v2');
  }

  /** Webhook endpoints of the key's project (another project's answer 404). */
  webhooks(projectId: string): Webhooks {
    return new Webhooks(this.http, `/v2/projects/${seg(projectId)}`);
  }

  catalogue(opts?: RequestOptions): Promise<CatalogueEntry[]> {
    return this.http.request({ method: 'GET', path: '/v2/providers/catalogue' }, opts);
  }

  /** Connects a session's `ws_url` (single use). */
  connectMedia(wsUrl: string, opts?: MediaOptions): Promise<MediaConnection> {
    return connectMedia(wsUrl, opts);
  }
}
