// @voice-agent/sdk: the machine door (VoiceClient), the console door (ConsoleClient), the
// browser-session door (createBrowserSession), the error classes of spec §7, webhook verification
// and the media socket.
export { VoiceClient, type VoiceClientOptions } from './voice-client.js';
export { ConsoleClient, ProjectScope, Projects, type ConsoleClientOptions } from './console-client.js';
export type { ClientOptions, RequestOptions } from './http.js';
export {
  VoiceApiError,
  AuthenticationError,
  PaymentRequiredError,
  NotFoundError,
  ConflictError,
  ValidationError,
  RateLimitError,
  ServerError,
  ConnectionError,
  TimeoutError,
  type FieldError,
} from './errors.js';
export { RETRYABLE_STATUSES, DEFAULT_RETRY, backoffMs, type RetryPolicy } from './retry.js';
export { toArray, type ListOptions } from './paginate.js';
export { verifyWebhook, WebhookVerificationError, WEBHOOK_TOLERANCE_SECONDS, type WebhookEvent, type WebhookHeaders, type VerifyOptions } from './webhooks.js';
export { connectMedia, MediaConnection, MediaCloseError, CLOSE_CODES, type ControlFrame, type MediaClose, type MediaEvents, type MediaOptions } from './media.js';
export { createBrowserSession, type BrowserSessionOptions } from './browser-session.js';
export type { Agents } from './resources/agents.js';
export type { Sessions, Transcript, TranscriptEntry } from './resources/sessions.js';
export type { Campaigns, CampaignGetOptions } from './resources/campaigns.js';
export type { Webhooks } from './resources/webhooks.js';
export type { ApiKeys, PublishableKeys, ProviderAccounts, WalletResource } from './resources/console.js';
export type { Carriers, Numbers, IncomingNumbersOptions } from './resources/carriers.js';
export type * from './types.js';
export type { paths, components } from './generated/openapi.js';
