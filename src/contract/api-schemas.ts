import { z } from 'zod';
import { AgentCreateBody, AgentDeleted, AgentInfo, AgentUpdateBody, CreatedAgent, InsightConfig } from './agents.js';
import { CarrierCreateBody, CarrierInfo, CarrierNumberCreateBody, CarrierNumberInfo, CarrierNumberUpdateBody, CarrierUpdateBody } from './carriers.js';
import {
  AccountInfo,
  ApiKeyCreateBody,
  ApiKeyInfo,
  CreatedApiKey,
  EmailVerifiedInfo,
  LoggedOutInfo,
  LoginBody,
  ProjectCreateBody,
  ProjectInfo,
  ProjectUpdateBody,
  RefreshBody,
  SignupBody,
  TokenPairInfo,
  VerifyEmailBody,
} from './identity.js';
import { CatalogueInfo, ProviderAccountCreateBody, ProviderAccountInfo, ProviderAccountUpdateBody } from './providers.js';
import { CreatedPublishableKey, PublishableKeyCreateBody, PublishableKeyInfo, PublishableKeyUpdateBody } from './publishable-keys.js';
import { TranscriptEntryInfo, TranscriptInfo } from './transcripts.js';
import {
  CallInsightsInfo,
  CreateOutboundVoiceSessionBody,
  CreateOutboundVoiceSessionResponse,
  CreateVoiceSessionBody,
  CreateVoiceSessionResponse,
  VoiceSessionInfo,
} from './voice-sessions.js';
import { LedgerEntry, WalletInfo } from './wallet.js';
import { CreatedWebhookEndpoint, DeadLetterInfo, WebhookEndpointInfo, WebhookTestResult } from './webhooks.js';

// The names request and response bodies carry in /openapi.json (components.schemas), so that
// generated clients get real types. The spec's names where it gives one (spec §2); a body
// schema met here is emitted once under its name and referenced everywhere it is used.

export const apiSchemas = z.registry<{ id: string }>();

/** Registers `schema` under `id` (also for schemas built per app, such as the webhook create body). */
export function named<S extends z.ZodType>(schema: S, id: string): S {
  apiSchemas.add(schema, { id });
  return schema;
}

/** Every error body but 422's. */
export const ErrorBody = named(z.object({ detail: z.string() }), 'Error');
export const FieldErrorInfo = named(
  z.object({ loc: z.array(z.union([z.string(), z.number().int()])), msg: z.string(), type: z.string() }),
  'FieldError',
);
/** 422: one entry per offending field, `loc` starting at body, query, path or header. */
export const ValidationErrorBody = named(z.object({ detail: z.array(FieldErrorInfo) }), 'ValidationError');

const names: [z.ZodType, string][] = [
  [AgentInfo, 'V2AgentInfo'],
  [AgentCreateBody, 'V2AgentCreate'],
  [AgentUpdateBody, 'V2AgentUpdate'],
  [CreatedAgent, 'V2CreatedAgentResponse'],
  [AgentDeleted, 'V2AgentDeleted'],
  [InsightConfig, 'InsightConfigBody'],
  [VoiceSessionInfo, 'VoiceSessionInfo'],
  [CallInsightsInfo, 'CallInsightsInfo'],
  [CreateVoiceSessionBody, 'CreateVoiceSessionRequest'],
  [CreateVoiceSessionResponse, 'CreateVoiceSessionResponse'],
  [CreateOutboundVoiceSessionBody, 'CreateOutboundVoiceSessionRequest'],
  [CreateOutboundVoiceSessionResponse, 'CreateOutboundVoiceSessionResponse'],
  [TranscriptInfo, 'TranscriptInfo'],
  [TranscriptEntryInfo, 'TranscriptEntry'],
  [WebhookEndpointInfo, 'WebhookEndpointInfo'],
  [CreatedWebhookEndpoint, 'CreatedWebhookEndpoint'],
  [WebhookTestResult, 'WebhookTestResult'],
  [DeadLetterInfo, 'DeadLetterInfo'],
  [SignupBody, 'SignupRequest'],
  [LoginBody, 'LoginRequest'],
  [VerifyEmailBody, 'VerifyEmailRequest'],
  [RefreshBody, 'RefreshRequest'],
  [AccountInfo, 'AccountInfo'],
  [TokenPairInfo, 'TokenPair'],
  [EmailVerifiedInfo, 'EmailVerified'],
  [LoggedOutInfo, 'LoggedOut'],
  [ProjectCreateBody, 'ProjectCreateRequest'],
  [ProjectUpdateBody, 'ProjectUpdateRequest'],
  [ProjectInfo, 'ProjectInfo'],
  [ApiKeyCreateBody, 'ApiKeyCreateRequest'],
  [ApiKeyInfo, 'ApiKeyInfo'],
  [CreatedApiKey, 'CreatedApiKey'],
  [CatalogueInfo, 'ProviderCatalogue'],
  [ProviderAccountCreateBody, 'ProviderAccountCreateRequest'],
  [ProviderAccountUpdateBody, 'ProviderAccountUpdateRequest'],
  [ProviderAccountInfo, 'ProviderAccountInfo'],
  [CarrierCreateBody, 'CarrierCreateRequest'],
  [CarrierUpdateBody, 'CarrierUpdateRequest'],
  [CarrierInfo, 'CarrierInfo'],
  [CarrierNumberCreateBody, 'CarrierNumberCreateRequest'],
  [CarrierNumberUpdateBody, 'CarrierNumberUpdateRequest'],
  [CarrierNumberInfo, 'CarrierNumberInfo'],
  [WalletInfo, 'WalletInfo'],
  [LedgerEntry, 'LedgerEntry'],
  [PublishableKeyCreateBody, 'PublishableKeyCreateRequest'],
  [PublishableKeyInfo, 'PublishableKeyInfo'],
  [CreatedPublishableKey, 'CreatedPublishableKey'],
  [PublishableKeyUpdateBody, 'PublishableKeyUpdateRequest'],
];
for (const [schema, id] of names) named(schema, id);
