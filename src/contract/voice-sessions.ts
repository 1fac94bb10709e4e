import { z } from 'zod';
import { paging, queryBool } from './validation.js';

/** Caller-supplied metadata is stored and sent back in every event: bounded so it cannot swell them. */
export const MAX_METADATA_BYTES = 16 * 1024;
const Metadata = z
  .record(z.string(), z.unknown())
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= MAX_METADATA_BYTES, `must be at most ${MAX_METADATA_BYTES} bytes as JSON`);

export const SESSION_STATUSES = ['created', 'active', 'completed', 'failed'] as const;

export const CreateVoiceSessionBody = z.strictObject({
  agent_id: z.uuid(),
  max_duration_seconds: z.number().int().min(1).max(2_147_483_647).nullish(),
  metadata: Metadata.nullish(),
  record: z.boolean().nullish(),
  store_transcript: z.boolean().nullish(),
  sample_rate_in: z.union([z.literal(8000), z.literal(16000)]).default(16000),
  sample_rate_out: z.union([z.literal(8000), z.literal(16000), z.literal(24000)]).default(24000),
  variables: z.record(z.string(), z.string()).default({}),
  /** Contract §9: `opus` makes every binary message one 20 ms Opus packet each way. */
  encoding: z.enum(['pcm16', 'opus']).default('pcm16'),
});
export type CreateVoiceSessionBody = z.output<typeof CreateVoiceSessionBody>;

const nullable = <T extends z.ZodType>(s: T) => z.union([z.literal('').transform(() => null), s]).optional();

export const ListVoiceSessionsQuery = z.strictObject({
  ...paging,
  status: nullable(z.enum(SESSION_STATUSES)),
  agent_id: nullable(z.uuid()),
  from: nullable(z.iso.datetime({ offset: true }).transform((v) => new Date(v))),
  to: nullable(z.iso.datetime({ offset: true }).transform((v) => new Date(v))),
  has_insights: nullable(queryBool),
});

export const SessionPath = z.object({ session_id: z.uuid() });

const money = z.string().regex(/^\d+$/);
const date = z.iso.datetime();

/** CallInsightsInfo: the post-call analysis (docs/insights.md). `data` has one key per configured field. */
export const CallInsightsInfo = z.object({
  status: z.enum(['completed', 'failed']),
  summary: z.string().nullable(),
  success: z.boolean().nullable(),
  data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  model: z.string(),
  completed_at: date,
  error: z.string().optional(),
});
export type CallInsightsInfo = z.output<typeof CallInsightsInfo>;

export const VoiceSessionInfo = z.object({
  id: z.uuid(),
  project_id: z.uuid(),
  agent_id: z.uuid().nullable(),
  agent_version: z.number().int().nullable(),
  status: z.enum(SESSION_STATUSES),
  direction: z.string(),
  language: z.string(),
  pipeline_mode: z.string(),
  pipeline_snapshot: z.record(z.string(), z.unknown()),
  project_revision: z.number().int(),
  sample_rate_in: z.number().int(),
  sample_rate_out: z.number().int(),
  max_duration_seconds: z.number().int(),
  connected_seconds: z.number().int(),
  created_at: date,
  started_at: date.nullable(),
  ended_at: date.nullable(),
  media_connected_at: date.nullable(),
  media_disconnected_at: date.nullable(),
  end_reason: z.string().nullable(),
  record: z.boolean(),
  store_transcript: z.boolean(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  insights: CallInsightsInfo.nullable().optional(),
  recording_ref: z.record(z.string(), z.unknown()).nullable().optional(),
  currency: z.literal('USD'),
  money_scale: z.number().int(),
  rate_nano_usd_per_min: money,
  rate_version: z.string(),
  hold_nano_usd: money,
  cost_nano_usd: money,
});

export const CreateVoiceSessionResponse = z.object({
  session: VoiceSessionInfo,
  ws_url: z.string(),
  expires_in_seconds: z.number().int(),
});

/** Spec 2.7 `CreateOutboundVoiceSessionRequest`; `from` is checked against the project's numbers (contract §10). */
export const CreateOutboundVoiceSessionBody = z.strictObject({
  agent_id: z.uuid(),
  from: z.string().min(1).max(64),
  to: z.string().regex(/^\+[1-9][0-9]{6,14}$/, 'must be an E.164 number such as +14155550100'),
  max_duration_seconds: z.number().int().min(1).max(2_147_483_647).nullish(),
  metadata: Metadata.nullish(),
  record: z.boolean().nullish(),
  store_transcript: z.boolean().nullish(),
  variables: z.record(z.string(), z.string()).default({}),
});
export type CreateOutboundVoiceSessionBody = z.output<typeof CreateOutboundVoiceSessionBody>;

export const CreateOutboundVoiceSessionResponse = z.object({
  session: VoiceSessionInfo,
  duplicate: z.boolean(),
});
