import type { paths } from './generated/openapi.js';

// Request and response shapes, read from the types generated from the service's OpenAPI
// document by path and method, so they follow the server (test/sdk/types-drift.test.ts).

type Method = 'get' | 'post' | 'patch' | 'delete';
type Op<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<T> = T extends { content: { 'application/json': infer J } } ? J : undefined;

/** The JSON body of the operation's success response (its only 2xx). */
export type ResponseOf<P extends keyof paths, M extends Method> = Op<P, M> extends { responses: infer R }
  ? JsonOf<R[Extract<keyof R, 200 | 201 | 202 | 204>]>
  : never;

/** The operation's JSON request body. */
export type BodyOf<P extends keyof paths, M extends Method> = Op<P, M> extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;

/** One element of a list response. */
export type ItemOf<P extends keyof paths> = ResponseOf<P, 'get'> extends (infer I)[] ? I : never;

export type Agent = ItemOf<'/v2/agents'>;
export type AgentCreate = BodyOf<'/v2/agents', 'post'>;
export type AgentUpdate = BodyOf<'/v2/agents/{agent_id}', 'patch'>;
export type CreatedAgent = ResponseOf<'/v2/agents', 'post'>;
export type DeletedAgent = ResponseOf<'/v2/agents/{agent_id}', 'delete'>;
export type AgentVersion = ResponseOf<'/v2/agents/{agent_id}/versions/{version}', 'get'>;
export type VoiceSession = ItemOf<'/v2/voice/sessions'>;
export type CreateVoiceSessionRequest = BodyOf<'/v2/voice/sessions', 'post'>;
export type CreateVoiceSessionResponse = ResponseOf<'/v2/voice/sessions', 'post'>;
export type CreateOutboundVoiceSessionRequest = BodyOf<'/v2/voice/sessions/outbound', 'post'>;
export type CreateOutboundVoiceSessionResponse = ResponseOf<'/v2/voice/sessions/outbound', 'post'>;
export type BrowserSessionRequest = BodyOf<'/v2/browser/sessions', 'post'>;
export type BrowserSessionResponse = ResponseOf<'/v2/browser/sessions', 'post'>;
export type Campaign = ItemOf<'/v2/voice/campaigns'>;
export type CampaignCreate = BodyOf<'/v2/voice/campaigns', 'post'>;
export type CampaignDetail = ResponseOf<'/v2/voice/campaigns/{campaign_id}', 'get'>;
export type CampaignRow = CampaignDetail['rows'][number];
export type WebhookEndpoint = ItemOf<'/v2/projects/{project_id}/webhooks'>;
export type CreateWebhookEndpointRequest = BodyOf<'/v2/projects/{project_id}/webhooks', 'post'>;
export type CreatedWebhookEndpoint = ResponseOf<'/v2/projects/{project_id}/webhooks', 'post'>;
export type UpdateWebhookEndpointRequest = BodyOf<'/v2/projects/{project_id}/webhooks/{endpoint_id}', 'patch'>;
export type WebhookTestResult = ResponseOf<'/v2/projects/{project_id}/webhooks/{endpoint_id}/test', 'post'>;
export type DeadLetter = ItemOf<'/v2/projects/{project_id}/webhooks/dead-letters'>;
export type WebhookDelivery = ItemOf<'/v2/projects/{project_id}/webhooks/deliveries'>;
export type ReplayResult = ResponseOf<'/v2/projects/{project_id}/webhooks/{endpoint_id}/dead-letters/{delivery_id}/replay', 'post'>;
export type CatalogueEntry = ItemOf<'/v2/providers/catalogue'>;

export type TokenPair = ResponseOf<'/console/auth/login', 'post'>;
export type SignupResponse = ResponseOf<'/console/auth/signup', 'post'>;
export type EmailVerified = ResponseOf<'/console/auth/verify-email', 'post'>;
export type Project = ItemOf<'/console/v2/projects'>;
export type ProjectCreate = BodyOf<'/console/v2/projects', 'post'>;
export type ProjectUpdate = BodyOf<'/console/v2/projects/{project_id}', 'patch'>;
export type ApiKey = ItemOf<'/console/v2/projects/{project_id}/api-keys'>;
export type ApiKeyCreate = BodyOf<'/console/v2/projects/{project_id}/api-keys', 'post'>;
export type CreatedApiKey = ResponseOf<'/console/v2/projects/{project_id}/api-keys', 'post'>;
export type PublishableKey = ItemOf<'/console/v2/projects/{project_id}/publishable-keys'>;
export type PublishableKeyCreate = BodyOf<'/console/v2/projects/{project_id}/publishable-keys', 'post'>;
export type CreatedPublishableKey = ResponseOf<'/console/v2/projects/{project_id}/publishable-keys', 'post'>;
export type PublishableKeyUpdate = BodyOf<'/console/v2/projects/{project_id}/publishable-keys/{id}', 'patch'>;
export type ProviderAccount = ItemOf<'/console/v2/projects/{project_id}/provider-accounts'>;
export type ProviderAccountCreate = BodyOf<'/console/v2/projects/{project_id}/provider-accounts', 'post'>;
export type ProviderAccountUpdate = BodyOf<'/console/v2/projects/{project_id}/provider-accounts/{id}', 'patch'>;
export type Wallet = ResponseOf<'/console/v2/projects/{project_id}/wallet', 'get'>;
export type LedgerEntry = ItemOf<'/console/v2/projects/{project_id}/wallet/ledger'>;
export type Carrier = ItemOf<'/console/v2/projects/{project_id}/carriers'>;
export type CarrierCreate = BodyOf<'/console/v2/projects/{project_id}/carriers', 'post'>;
export type CarrierUpdate = BodyOf<'/console/v2/projects/{project_id}/carriers/{carrier_id}', 'patch'>;
export type PhoneNumber = ItemOf<'/console/v2/projects/{project_id}/carriers/{carrier_id}/numbers'>;
export type PhoneNumberCreate = BodyOf<'/console/v2/projects/{project_id}/carriers/{carrier_id}/numbers', 'post'>;
export type PhoneNumberUpdate = BodyOf<'/console/v2/projects/{project_id}/carriers/{carrier_id}/numbers/{number_id}', 'patch'>;
export type IncomingNumbersPage = ResponseOf<'/console/v2/projects/{project_id}/carriers/{carrier_id}/incoming-numbers', 'get'>;
export type IncomingNumber = IncomingNumbersPage['numbers'][number];

/** Filters of the session list (spec §4.3). */
export interface SessionListQuery {
  status?: 'created' | 'active' | 'completed' | 'failed';
  agent_id?: string;
  from?: string;
  to?: string;
  has_insights?: boolean;
}

/** Filter of the campaign list. */
export interface CampaignListQuery {
  status?: Campaign['status'];
}

/** Filters of the webhook delivery log. */
export interface DeliveryListQuery {
  endpoint_id?: string;
  session_id?: string;
  status?: WebhookDelivery['status'];
}
