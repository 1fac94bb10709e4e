import { z } from 'zod';
import { assertStorableText } from './text.js';

// Agent bodies and responses (spec 2.1–2.5, contract §3–4).

export const AMBIENCE_SOUNDS = ['white_noise', 'pink_noise', 'brown_noise', 'office_hum'] as const;
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const VARIABLE_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;
export const BUILT_IN_TOOLS = ['end_call', 'send_dtmf', 'transfer_call'];
export const E164 = /^\+[1-9][0-9]{6,14}$/;

function isLanguageTag(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

export const languageTag = z.string().min(2).max(35).refine(isLanguageTag, 'must be a BCP 47 language tag');
const int = (min: number, max: number) => z.number().int().min(min).max(max);

// --- pipeline_config stages: strict, so no credential (or anything else) can be stored in an agent.
const accountId = z.uuid();
const model = z.string().min(1).max(100);
const voice = z.string().min(1).max(100);
export const SttStage = z.strictObject({ account_id: accountId, model, language: languageTag.optional(), endpointing_ms: int(0, 5000).optional() });
export const LlmStage = z.strictObject({ account_id: accountId, model, temperature: z.number().min(0).max(2).optional(), max_tokens: int(1, 32000).optional() });
export const TtsStage = z.strictObject({ account_id: accountId, model, voice, speed: z.number().min(0.25).max(4).optional() });
export const RealtimeStage = z.strictObject({ account_id: accountId, model, voice, endpointing_ms: int(0, 5000).optional() });
export const CascadeConfig = z.strictObject({ stt: SttStage, llm: LlmStage, tts: TtsStage });
export const RealtimeConfig = z.strictObject({ realtime: RealtimeStage });
export type PipelineConfig = z.output<typeof CascadeConfig> | z.output<typeof RealtimeConfig>;

export const PIPELINE_MODES = ['cascade', 'realtime'] as const;
export type PipelineMode = (typeof PIPELINE_MODES)[number];

// --- tools and variables
const jsonSchemaObject = z
  .record(z.string(), z.unknown())
  .refine((s) => s.type === 'object', 'must be a JSON Schema object ({"type": "object", ...})')
  .refine((s) => s.properties === undefined || (typeof s.properties === 'object' && s.properties !== null && !Array.isArray(s.properties)), 'properties must be an object')
  .refine((s) => s.required === undefined || (Array.isArray(s.required) && s.required.every((r) => typeof r === 'string')), 'required must be an array of strings');

export const Tool = z.strictObject({
  type: z.literal('function'),
  name: z.string().regex(TOOL_NAME, 'must match ^[a-zA-Z0-9_-]{1,64}$').refine((n) => !BUILT_IN_TOOLS.includes(n), 'is the name of a built-in tool'),
  description: z.string().max(1024).optional(),
  parameters: jsonSchemaObject.optional(),
});
export const Variable = z.strictObject({
  name: z.string().regex(VARIABLE_NAME, 'must match ^[a-zA-Z_][a-zA-Z0-9_]{0,63}$'),
  required: z.boolean().default(false),
});

function uniqueNames<T extends { name: string }>(items: T[], ctx: z.RefinementCtx, what: string) {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate ${what} name` });
    seen.add(item.name);
  });
}
export const Tools = z.array(Tool).max(64).superRefine((t, c) => uniqueNames(t, c, 'tool'));
export const Variables = z.array(Variable).max(64).superRefine((v, c) => uniqueNames(v, c, 'variable'));
export type AgentVariable = z.output<typeof Variable>;

// --- transfer_destinations (contract §11): the people the model may hand a phone call to.
export const TransferDestination = z.strictObject({
  name: z.string().trim().min(1).max(64),
  e164: z.string().regex(E164, 'must be an E.164 number (^\\+[1-9][0-9]{6,14}$)'),
  description: z.string().max(500).default(''),
});
export const TransferDestinations = z.array(TransferDestination).max(20).superRefine((d, c) => uniqueNames(d, c, 'destination'));
export type TransferDestination = z.output<typeof TransferDestination>;

// --- voicemail (contract §11): what an outbound call does when a machine answers (docs/telephony.md, Voicemail).
export const VOICEMAIL_ACTIONS = ['hangup', 'leave_message'] as const;
export const VOICEMAIL_MESSAGE_MAX = 1000;
export const Voicemail = z
  .strictObject({
    action: z.enum(VOICEMAIL_ACTIONS),
    // Rendered with the session's variables, like the greeting.
    message: z.string().trim().min(1).max(VOICEMAIL_MESSAGE_MAX).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.action === 'leave_message' && v.message === undefined) ctx.addIssue({ code: 'custom', path: ['message'], message: 'field required when action is leave_message' });
    if (v.action === 'hangup' && v.message !== undefined) ctx.addIssue({ code: 'custom', path: ['message'], message: 'only allowed when action is leave_message' });
  });
export type VoicemailSetting = z.output<typeof Voicemail>;

// --- insight_config (InsightConfigBody; the spec leaves its fields open, docs/insights.md fills them)
export const INSIGHT_FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'enum'] as const;
const insightFieldName = z.string().regex(VARIABLE_NAME, 'must match ^[a-zA-Z_][a-zA-Z0-9_]{0,63}$');
export const InsightField = z
  .strictObject({
    name: insightFieldName,
    type: z.enum(INSIGHT_FIELD_TYPES),
    description: z.string().max(1000).optional(),
    enum: z.array(z.string().min(1).max(200)).min(1).max(50).optional(),
    required: z.boolean().default(false),
  })
  .superRefine((f, ctx) => {
    if (f.type === 'enum' && f.enum === undefined) ctx.addIssue({ code: 'custom', path: ['enum'], message: 'field required when type is enum' });
    if (f.type !== 'enum' && f.enum !== undefined) ctx.addIssue({ code: 'custom', path: ['enum'], message: 'only allowed when type is enum' });
    const seen = new Set<string>();
    f.enum?.forEach((v, i) => {
      if (seen.has(v)) ctx.addIssue({ code: 'custom', path: ['enum', i], message: 'duplicate enum value' });
      seen.add(v);
    });
  });
export type InsightField = z.output<typeof InsightField>;

/**
 * One field entry: the object, or a bare name as shorthand for `{name, type: "string"}`.
 * Validated by the branch its JSON type selects, so errors name the offending key instead of
 * "invalid union"; unknown keys are left to the union (whose object branch names them).
 */
const InsightFieldEntry = z.preprocess(
  (value, ctx) => {
    if (typeof value !== 'string' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      ctx.addIssue({ code: 'custom', message: 'must be a field name or a {name, type, ...} object', input: value });
      return value;
    }
    const result = (typeof value === 'string' ? insightFieldName : InsightField).safeParse(value);
    if (!result.success) {
      for (const issue of result.error.issues) if (issue.code !== 'unrecognized_keys') ctx.addIssue({ ...issue, input: value } as never);
    }
    return value;
  },
  z.union([insightFieldName, InsightField]),
);

const InsightConfigObject = z.strictObject({
  summary: z.boolean().default(true),
  success_criteria: z.string().min(1).max(2000).optional(),
  fields: z
    .array(InsightFieldEntry)
    .max(32)
    .superRefine((fields, ctx) => {
      const seen = new Set<string>();
      fields.forEach((f, i) => {
        const n = typeof f === 'string' ? f : f.name;
        if (seen.has(n)) ctx.addIssue({ code: 'custom', path: typeof f === 'string' ? [i] : [i, 'name'], message: 'duplicate field name' });
        seen.add(n);
      });
    })
    .optional(),
});

/**
 * InsightConfigBody. Text Postgres cannot store, and nesting past its limit, are reported
 * first (as for the rest of the agent body) so that such a key is named for what is wrong with it.
 */
export const InsightConfig = z.preprocess((value, ctx) => {
  try {
    assertStorableText({ insight_config: value });
  } catch (err) {
    const detail = (err as { detail?: unknown }).detail;
    if (!Array.isArray(detail)) throw err;
    for (const d of detail as { loc: (string | number)[]; msg: string }[]) {
      ctx.addIssue({ code: 'custom', path: d.loc.slice(2), message: d.msg, input: value });
    }
  }
  return value;
}, InsightConfigObject);
export type InsightConfigBody = z.output<typeof InsightConfig>;
const url = z.string().min(8).max(2048);

// Fields with defaults and fields that may be null, shared by create and update.
const optionalFields = {
  display_name: z.string().max(120).nullable(),
  greeting: z.string().max(4000).nullable(),
  tool_webhook_url: url.nullable(),
  webhook_url: url.nullable(),
  ambience_level: int(0, 100).nullable(),
  ambience_sound: z.enum(AMBIENCE_SOUNDS).nullable(),
  dead_air_seconds: int(1, 60).nullable(),
  idle_warn_seconds: int(1, 600).nullable(),
  idle_hangup_seconds: int(5, 3600).nullable(),
  max_duration_seconds: int(10, 14400).nullable(),
  max_chars_per_min: int(50, 20000).nullable(),
  retention_days: int(1, 90).nullable(),
  insight_config: InsightConfig.nullable(),
  transfer_timeout_seconds: int(5, 120).nullable(),
  voicemail: Voicemail.nullable(),
};

// On/off settings and their defaults, shared by create and update.
const flagDefaults = {
  backchannel: true,
  interruptible_greeting: true,
  can_send_dtmf: false,
  record_calls: false,
  store_transcript: false,
  webhook_include_recording_url: false,
  webhook_include_transcript: false,
};
/** One schema per flag, in the table's order. */
const eachFlag = <S extends z.ZodType>(schema: (byDefault: boolean) => S) =>
  Object.fromEntries(Object.entries(flagDefaults).map(([k, d]) => [k, schema(d)])) as Record<keyof typeof flagDefaults, S>;

const name = z.string().trim().min(1).max(120);
const prompt = z.string().max(32000);
const pipelineConfig = z.record(z.string(), z.unknown());

export const AgentCreateBody = z.strictObject({
  name,
  prompt,
  pipeline_mode: z.enum(PIPELINE_MODES),
  // Checked against pipeline_mode after parsing, so that loc names the offending stage key.
  pipeline_config: pipelineConfig,
  language: languageTag.default('en-IN'),
  ...eachFlag((byDefault) => z.boolean().default(byDefault)),
  tools: Tools.default([]),
  variables: Variables.default([]),
  transfer_destinations: TransferDestinations.default([]),
  ...Object.fromEntries(Object.entries(optionalFields).map(([k, v]) => [k, (v as z.ZodNullable<z.ZodType>).default(null)])) as {
    [K in keyof typeof optionalFields]: z.ZodDefault<(typeof optionalFields)[K]>;
  },
});
export type AgentCreate = z.output<typeof AgentCreateBody>;

// Update: every field optional and nullable (spec 2.3). For a field that cannot be null in
// the agent (name, prompt, booleans, ...), null means "leave as it is".
export const AgentUpdateBody = z.strictObject({
  name: name.nullable().optional(),
  prompt: prompt.nullable().optional(),
  pipeline_mode: z.enum(PIPELINE_MODES).nullable().optional(),
  pipeline_config: pipelineConfig.nullable().optional(),
  language: languageTag.nullable().optional(),
  ...eachFlag(() => z.boolean().nullable().optional()),
  tools: Tools.nullable().optional(),
  variables: Variables.nullable().optional(),
  transfer_destinations: TransferDestinations.nullable().optional(),
  is_active: z.boolean().nullable().optional(),
  ...Object.fromEntries(Object.entries(optionalFields).map(([k, v]) => [k, (v as z.ZodNullable<z.ZodType>).optional()])) as {
    [K in keyof typeof optionalFields]: z.ZodOptional<(typeof optionalFields)[K]>;
  },
});
export type AgentUpdate = z.output<typeof AgentUpdateBody>;

const date = z.iso.datetime();
export const AgentInfo = z.object({
  id: z.uuid(),
  project_id: z.uuid(),
  name: z.string(),
  display_name: z.string().nullable(),
  prompt: z.string(),
  greeting: z.string().nullable(),
  language: z.string(),
  pipeline_mode: z.enum(PIPELINE_MODES),
  pipeline_config: z.record(z.string(), z.unknown()),
  tools: z.array(z.unknown()),
  tool_webhook_url: z.string().nullable(),
  variables: z.array(z.unknown()),
  backchannel: z.boolean(),
  interruptible_greeting: z.boolean(),
  can_send_dtmf: z.boolean(),
  ambience_level: z.number().int().nullable(),
  ambience_sound: z.string().nullable(),
  dead_air_seconds: z.number().int().nullable(),
  idle_warn_seconds: z.number().int().nullable(),
  idle_hangup_seconds: z.number().int().nullable(),
  max_duration_seconds: z.number().int().nullable(),
  max_chars_per_min: z.number().int().nullable(),
  record_calls: z.boolean(),
  store_transcript: z.boolean(),
  retention_days: z.number().int().nullable(),
  insight_config: InsightConfig.nullable(),
  transfer_destinations: z.array(TransferDestination),
  transfer_timeout_seconds: z.number().int().nullable(),
  voicemail: Voicemail.nullable(),
  webhook_url: z.string().nullable(),
  webhook_include_transcript: z.boolean(),
  webhook_include_recording_url: z.boolean(),
  has_webhook_secret: z.boolean(),
  is_active: z.boolean(),
  version: z.number().int(),
  created_at: date,
  updated_at: date,
});
export const CreatedAgent = z.object({ agent: AgentInfo, webhook_secret: z.string() });
export const AgentDeleted = z.object({ id: z.uuid(), name: z.string(), deleted: z.boolean(), calls: z.number().int() });
