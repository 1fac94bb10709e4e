import { z } from 'zod';
import { named } from './api-schemas.js';
import { paging } from './validation.js';
import { CreateOutboundVoiceSessionBody } from './voice-sessions.js';

// Batch campaigns (contract §11): `/v2/voice/campaigns` and its console twin. Each row becomes
// an ordinary outbound session; windows are read in the callee's time zone (the row's
// `timezone`, else the campaign's).

export const MAX_CAMPAIGN_ROWS = 10_000;
export const MAX_FROM_NUMBERS = 100;
export const MAX_CONCURRENT_CALLS = 100;
export const WEEK_DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type WeekDay = (typeof WEEK_DAYS)[number];
export const CAMPAIGN_STATUSES = ['running', 'paused', 'canceled', 'completed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const ROW_STATES = ['queued', 'in_progress', 'retrying', 'completed', 'failed', 'canceled'] as const;
export type RowState = (typeof ROW_STATES)[number];
/** End reasons a campaign may retry. */
export const RETRYABLE_OUTCOMES = ['busy', 'no_answer'] as const;

/** True for an IANA time zone name the runtime knows (Intl throws RangeError on others). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const TimeZone = z.string().min(1).max(64).refine(isTimeZone, 'must be an IANA time zone such as America/New_York');
const clock = (max: string) =>
  z.string().regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$/, `must be a time HH:MM between 00:00 and ${max}`);

/** `HH:MM` as minutes after midnight. */
export const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

export const CallingWindow = z
  .strictObject({
    days: z.array(z.enum(WEEK_DAYS)).min(1).max(7),
    /** Local time the window opens, inclusive. */
    start: clock('23:59').refine((v) => v !== '24:00', 'must be at most 23:59'),
    /** Local time the window closes, exclusive (24:00: midnight). */
    end: clock('24:00'),
  })
  .refine((w) => minutesOf(w.start) < minutesOf(w.end), { path: ['end'], message: 'must be after start (split a window that spans midnight in two)' });
export type CallingWindow = z.output<typeof CallingWindow>;

const outbound = CreateOutboundVoiceSessionBody.shape;

export const CampaignRowInput = z.strictObject({
  to: outbound.to,
  variables: outbound.variables,
  metadata: outbound.metadata,
  /** The callee's IANA time zone; the campaign's `timezone` when absent. */
  timezone: TimeZone.nullish(),
});

export const RetryPolicy = z.strictObject({
  /** Attempts per row in all, the first one included (1: no retry). */
  max_attempts: z.number().int().min(1).max(10).default(3),
  /** Least time between the end of an attempt and the next one. */
  min_spacing_seconds: z.number().int().min(1).max(7 * 86_400).default(600),
  /** Which outcomes are retried. */
  on: z.array(z.enum(RETRYABLE_OUTCOMES)).max(2).default([...RETRYABLE_OUTCOMES]),
});
export type RetryPolicy = z.output<typeof RetryPolicy>;

export const CreateCampaignBody = named(
  z.strictObject({
    name: z.string().trim().min(1).max(200),
    agent_id: z.uuid(),
    /** Numbers of the project with outbound calls enabled; rows use them in turn. */
    from_numbers: z
      .array(outbound.from)
      .min(1)
      .max(MAX_FROM_NUMBERS)
      .refine((a) => new Set(a).size === a.length, 'must not repeat a number'),
    rows: z.array(CampaignRowInput).min(1).max(MAX_CAMPAIGN_ROWS),
    max_concurrent_calls: z.number().int().min(1).max(MAX_CONCURRENT_CALLS).default(5),
    /** Time zone of rows that name none. */
    timezone: TimeZone.default('UTC'),
    /** When calls may start, in the callee's time zone; empty: any time. */
    calling_windows: z.array(CallingWindow).max(14).default([]),
    retry: RetryPolicy.default(RetryPolicy.parse({})),
    max_duration_seconds: outbound.max_duration_seconds,
    record: outbound.record,
    store_transcript: outbound.store_transcript,
  }),
  'CreateCampaignRequest',
);
export type CreateCampaignBody = z.output<typeof CreateCampaignBody>;

export const CampaignCounters = named(
  z.object({
    total: z.number().int(),
    queued: z.number().int(),
    in_progress: z.number().int(),
    retrying: z.number().int(),
    completed: z.number().int(),
    failed: z.number().int(),
    canceled: z.number().int(),
  }),
  'CampaignCounters',
);
export type CampaignCounters = z.output<typeof CampaignCounters>;

const date = z.iso.datetime();

export const CampaignInfo = named(
  z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    agent_id: z.uuid(),
    status: z.enum(CAMPAIGN_STATUSES),
    from_numbers: z.array(z.string()),
    max_concurrent_calls: z.number().int(),
    timezone: z.string(),
    calling_windows: z.array(CallingWindow),
    retry: z.object({ max_attempts: z.number().int(), min_spacing_seconds: z.number().int(), on: z.array(z.enum(RETRYABLE_OUTCOMES)) }),
    max_duration_seconds: z.number().int().nullable(),
    record: z.boolean().nullable(),
    store_transcript: z.boolean().nullable(),
    counters: CampaignCounters,
    /** Why the last dial attempts could not start (wallet, concurrency, carrier, agent), or null. */
    last_error: z.string().nullable(),
    created_at: date,
    updated_at: date,
    /** When the last row finished (campaign.completed was sent). */
    finished_at: date.nullable(),
  }),
  'CampaignInfo',
);
export type CampaignInfo = z.output<typeof CampaignInfo>;

export const CampaignAttemptInfo = named(
  z.object({
    attempt: z.number().int(),
    session_id: z.uuid(),
    from: z.string(),
    /** The session's status and end_reason (null while it is live). */
    status: z.string(),
    end_reason: z.string().nullable(),
    created_at: date,
  }),
  'CampaignAttemptInfo',
);

export const CampaignRowInfo = named(
  z.object({
    /** The row's index in the creating request. */
    index: z.number().int(),
    to: z.string(),
    timezone: z.string(),
    state: z.enum(ROW_STATES),
    attempts: z.number().int(),
    /** When a waiting row may be dialled next (null: as soon as its window and capacity allow). */
    next_attempt_at: date.nullable(),
    outcome: z.string().nullable(),
    last_error: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    results: z.array(CampaignAttemptInfo),
  }),
  'CampaignRowInfo',
);
export type CampaignRowInfo = z.output<typeof CampaignRowInfo>;

export const CampaignDetail = named(CampaignInfo.extend({ rows: z.array(CampaignRowInfo) }), 'CampaignDetail');
export type CampaignDetail = z.output<typeof CampaignDetail>;

export const CampaignPath = z.object({ campaign_id: z.uuid() });

const nullable = <T extends z.ZodType>(s: T) => z.union([z.literal('').transform(() => null), s]).optional();

export const ListCampaignsQuery = z.strictObject({ ...paging, status: nullable(z.enum(CAMPAIGN_STATUSES)) });

/** GET by id: a page of rows (by index), optionally of one state. */
export const CampaignRowsQuery = z.strictObject({ ...paging, state: nullable(z.enum(ROW_STATES)) });
