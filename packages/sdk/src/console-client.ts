import { Transport, type ClientOptions, type RequestOptions } from './http.js';
import { AuthenticationError } from './errors.js';
import type { ListOptions } from './paginate.js';
import { Agents } from './resources/agents.js';
import { seg, Resource } from './resources/base.js';
import { Campaigns } from './resources/campaigns.js';
import { Carriers } from './resources/carriers.js';
import { ApiKeys, ProviderAccounts, PublishableKeys, WalletResource } from './resources/console.js';
import { Sessions } from './resources/sessions.js';
import { Webhooks } from './resources/webhooks.js';
import type { CatalogueEntry, EmailVerified, Project, ProjectCreate, ProjectUpdate, SignupResponse, TokenPair } from './types.js';

// The console door (account session). The client logs in, refreshes its access token before it
// expires, and on a 401 refreshes once, then signs in again when it knows the password
// (spec §5). Refresh tokens rotate: each is used once.

export interface ConsoleClientOptions extends ClientOptions {
  email?: string;
  password?: string;
  /** A pair from an earlier login. */
  tokens?: TokenPair;
}

/** Refresh this long before the access token's expiry. */
const EARLY_REFRESH_MS = 30_000;

export class ConsoleClient {
  readonly projects: Projects;
  private readonly http: Transport;
  private readonly anonymous: Transport;
  private tokens: TokenPair | null;
  private expiresAt = 0;
  private renewing: Promise<boolean> | null = null;

  constructor(private readonly opts: ConsoleClientOptions) {
    this.tokens = opts.tokens ?? null;
    if (this.tokens) this.expiresAt = Date.now() + this.tokens.expires_in * 1000;
    this.anonymous = new Transport(opts, { headers: async () => ({}) });
    this.http = new Transport(opts, {
      headers: async () => ({ authorization: `Bearer ${await this.accessToken()}` }),
      renew: () => this.renew(),
    });
    this.projects = new Projects(this.http, '/console/v2');
  }

  /** Signs in and returns a client that keeps its session alive. */
  static async login(opts: ConsoleClientOptions & { email: string; password: string }): Promise<ConsoleClient> {
    const client = new ConsoleClient(opts);
    await client.login();
    return client;
  }

  /** Creates an account (a verification e-mail follows). */
  static signup(opts: ClientOptions & { email: string; password: string }, request?: RequestOptions): Promise<SignupResponse> {
    return new Transport(opts, { headers: async () => ({}) }).request({ method: 'POST', path: '/console/auth/signup', body: { email: opts.email, password: opts.password } }, request);
  }

  /** Confirms an account's e-mail address with the token of the verification e-mail. */
  static verifyEmail(opts: ClientOptions, token: string, request?: RequestOptions): Promise<EmailVerified> {
    return new Transport(opts, { headers: async () => ({}) }).request({ method: 'POST', path: '/console/auth/verify-email', body: { token } }, request);
  }

  /** The current token pair (to persist a session). */
  get session(): TokenPair | null {
    return this.tokens;
  }

  async login(): Promise<TokenPair> {
    const { email, password } = this.opts;
    if (!email || !password) throw new TypeError('ConsoleClient.login needs email and password');
    return this.store(await this.anonymous.request<TokenPair>({ method: 'POST', path: '/console/auth/login', body: { email, password } }));
  }

  /** Revokes this session's token family. */
  async logout(opts?: RequestOptions): Promise<void> {
    if (!this.tokens) return;
    await this.http.request({ method: 'POST', path: '/console/auth/logout' }, opts);
    this.tokens = null;
  }

  /** One project's resources. */
  project(projectId: string): ProjectScope {
    return new ProjectScope(this.http, `/console/v2/projects/${seg(projectId)}`);
  }

  catalogue(opts?: RequestOptions): Promise<CatalogueEntry[]> {
    return this.http.request({ method: 'GET', path: '/console/v2/providers/catalogue' }, opts);
  }

  private store(pair: TokenPair): TokenPair {
    this.tokens = pair;
    this.expiresAt = Date.now() + pair.expires_in * 1000;
    return pair;
  }

  private async accessToken(): Promise<string> {
    if (!this.tokens) await this.login();
    else if (Date.now() > this.expiresAt - EARLY_REFRESH_MS) await this.renew();
    if (!this.tokens) throw new TypeError('ConsoleClient has no session');
    return this.tokens.access_token;
  }

  /** Refresh (one at a time, shared by concurrent requests); if that fails, sign in again. */
  private renew(): Promise<boolean> {
    this.renewing ??= (async () => {
      try {
        if (this.tokens) {
          try {
            this.store(await this.anonymous.request<TokenPair>({ method: 'POST', path: '/console/auth/refresh', body: { refresh_token: this.tokens.refresh_token } }));
            return true;
          } catch (err) {
            if (!(err instanceof AuthenticationError)) throw err;
            this.tokens = null;
          }
        }
        if (!this.opts.email || !this.opts.password) return false;
        await this.login();
        return true;
      } finally {
        this.renewing = null;
      }
    })();
    return this.renewing;
  }
}

export class Projects extends Resource {
  list(opts?: ListOptions): AsyncGenerator<Project, void, undefined> {
    return this.paged<Project>('/projects', {}, opts);
  }
  create(body: ProjectCreate, opts?: RequestOptions): Promise<Project> {
    return this.call('POST', '/projects', opts, body);
  }
  get(projectId: string, opts?: RequestOptions): Promise<Project> {
    return this.call('GET', `/projects/${seg(projectId)}`, opts);
  }
  update(projectId: string, body: ProjectUpdate, opts?: RequestOptions): Promise<Project> {
    return this.call('PATCH', `/projects/${seg(projectId)}`, opts, body);
  }
}

/** Everything under `/console/v2/projects/{project_id}`. */
export class ProjectScope {
  readonly agents: Agents;
  readonly sessions: Sessions;
  readonly campaigns: Campaigns;
  readonly webhooks: Webhooks;
  readonly apiKeys: ApiKeys;
  readonly publishableKeys: PublishableKeys;
  readonly providerAccounts: ProviderAccounts;
  readonly wallet: WalletResource;
  readonly carriers: Carriers;
  constructor(http: Transport, base: string) {
    this.agents = new Agents(http, base);
    this.sessions = new Sessions(http, base);
    this.campaigns = new Campaigns(http, base);
    this.webhooks = new Webhooks(http, base);
    this.apiKeys = new ApiKeys(http, base);
    this.publishableKeys = new PublishableKeys(http, base);
    this.providerAccounts = new ProviderAccounts(http, base);
    this.wallet = new WalletResource(http, base);
    this.carriers = new Carriers(http, base);
  }
}
