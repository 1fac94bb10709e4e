import type { AppContext } from '../shared/app-context.js';
import type { CallInsightsInfo } from '../contract/voice-sessions.js';
import { getVersionCallSettings } from '../db/repos/agent-versions.js';
import { findLiveAccountEndpoint, getProviderApiKey } from '../db/repos/provider-accounts.js';
import { clearInsightsPending, getSessionForInsights, storeInsights, type SessionForInsights } from '../db/repos/session-insights.js';
import { getTranscript } from '../db/repos/session-transcripts.js';
import { isProviderError } from '../providers/errors.js';
import { createAdapters, type RegistryOptions } from '../providers/registry.js';
import type { LlmAdapter } from '../providers/types.js';
import type { TranscriptEntry } from '../contract/events.js';
import { insightPlan, type InsightPlan } from './config.js';
import { echoInsights } from './echo.js';
import { InvalidModelOutput, parseInsights, type ParsedInsights } from './parse.js';
import { insightMessages } from './prompt.js';
import { failedInsights } from './store.js';

// One session's analysis, with no BullMQ in sight: load what the call ran on, ask its LLM
// (or the echo stand-in), store CallInsightsInfo. A retryable provider failure is thrown as
// RetryInsights unless this is the last attempt; every other failure is stored as `failed`.

/** Text model used for realtime agents, whose own model is speech to speech. */
export const REALTIME_TEXT_MODELS: Record<string, string> = { openai: 'gpt-4o-mini' };
export const LLM_TIMEOUT_MS = 60_000;
const MAX_OUTPUT_TOKENS = 2_000;

export class RetryInsights extends Error {}
class TimeoutError extends Error {}

export interface AnalyseOptions {
  /** The transcript from the job (when it was not stored). */
  transcript?: readonly TranscriptEntry[];
  /** No retry follows: a retryable failure is stored as `failed`. */
  finalAttempt: boolean;
  registry?: RegistryOptions;
  llmTimeoutMs?: number;
}

export type AnalyseOutcome =
  | { kind: 'stored'; insights: CallInsightsInfo }
  | { kind: 'skipped'; reason: 'gone' | 'not_pending' | 'no_config' };

interface TextModel {
  provider: string;
  model: string;
  accountId: string | null;
}

/** The LLM that analyses a call: the cascade's llm stage, or a chat model of the realtime provider. */
export function textModelFor(snapshot: SessionForInsights['pipeline_snapshot']): TextModel | string {
  const llm = snapshot.llm;
  if (llm && typeof llm.provider === 'string' && typeof llm.model === 'string') {
    return { provider: llm.provider, model: llm.model, accountId: typeof llm.account_id === 'string' ? llm.account_id : null };
  }
  const rt = snapshot.realtime;
  if (rt && typeof rt.provider === 'string') {
    const model = REALTIME_TEXT_MODELS[rt.provider];
    if (!model) return `no text model for realtime provider ${rt.provider}`;
    return { provider: rt.provider, model, accountId: typeof rt.account_id === 'string' ? rt.account_id : null };
  }
  return 'the session has no llm or realtime stage';
}

async function adapterFor(ctx: AppContext, m: TextModel, registry: RegistryOptions | undefined): Promise<LlmAdapter> {
  let apiKey: string | null = null;
  let baseUrl: string | null = null;
  if (m.accountId) {
    apiKey = await getProviderApiKey(ctx, m.accountId);
    const acc = await findLiveAccountEndpoint(ctx.sql, m.accountId);
    baseUrl = acc?.base_url ?? null;
  }
  // The registry refuses a non-local provider without a key (account deleted meanwhile).
  // Public addresses only unless the deployment allows private ones (contract §3).
  const options: RegistryOptions = { allowPrivateUrls: ctx.config.ALLOW_PRIVATE_URLS, ...registry };
  return createAdapters({ llm: { provider: m.provider, model: m.model } }, { llm: { apiKey, baseUrl } }, options).llm!.adapter;
}

async function complete(adapter: LlmAdapter, plan: InsightPlan, transcript: readonly TranscriptEntry[], timeoutMs: number): Promise<string> {
  const signal = AbortSignal.timeout(timeoutMs);
  let text = '';
  try {
    for await (const ev of adapter.stream({ messages: insightMessages(plan, transcript), maxTokens: MAX_OUTPUT_TOKENS, signal })) {
      if (ev.type === 'text') text += ev.text;
    }
  } catch (err) {
    if (signal.aborted) throw new TimeoutError(`no answer within ${Math.round(timeoutMs / 1000)} s`);
    throw err;
  }
  return text;
}

function describeFailure(err: unknown): { message: string; retryable: boolean } {
  if (err instanceof TimeoutError) return { message: `provider timeout (${err.message})`, retryable: true };
  // ProviderError messages are ours and static (never the provider's free text, never a key).
  if (isProviderError(err)) return { message: `provider error: ${err.message}`, retryable: err.recoverable || err.kind === 'protocol' };
  return { message: 'analysis failed', retryable: true };
}

export async function analyseSession(ctx: AppContext, sessionId: string, opts: AnalyseOptions): Promise<AnalyseOutcome> {
  const s = await getSessionForInsights(ctx.sql, sessionId);
  if (!s) return { kind: 'skipped', reason: 'gone' };
  if (!s.insights_pending_since) return { kind: 'skipped', reason: 'not_pending' };
  const store = async (info: CallInsightsInfo): Promise<AnalyseOutcome> =>
    (await storeInsights(ctx.sql, sessionId, info)) ? { kind: 'stored', insights: info } : { kind: 'skipped', reason: 'not_pending' };

  const version = s.agent_id && s.agent_version !== null ? await getVersionCallSettings(ctx.sql, s.agent_id, s.agent_version) : undefined;
  if (!version || version.insight_config === null) {
    await clearInsightsPending(ctx.sql, sessionId);
    return { kind: 'skipped', reason: 'no_config' };
  }
  const target = textModelFor(s.pipeline_snapshot ?? {});
  const modelName = typeof target === 'string' ? 'none' : target.provider === 'local' ? 'echo' : target.model;
  const fail = (error: string) => store(failedInsights(modelName, error, ctx.clock.now()));

  const plan = insightPlan(version.insight_config);
  if (!plan) return fail('insight_config is not a valid InsightConfigBody');
  if (typeof target === 'string') return fail(target);
  const transcript = opts.transcript?.length ? opts.transcript : await getTranscript(ctx.sql, sessionId);
  if (transcript.length === 0) return fail('transcript unavailable');

  let parsed: ParsedInsights;
  let model = target.model;
  if (target.provider === 'local') {
    parsed = echoInsights(plan, transcript);
    model = 'echo';
  } else {
    let text: string;
    try {
      const adapter = await adapterFor(ctx, target, opts.registry);
      text = await complete(adapter, plan, transcript, opts.llmTimeoutMs ?? LLM_TIMEOUT_MS);
    } catch (err) {
      const { message, retryable } = describeFailure(err);
      ctx.log.warn({ session_id: sessionId, error: message, final: opts.finalAttempt || !retryable }, 'insights provider call failed');
      if (retryable && !opts.finalAttempt) throw new RetryInsights(message);
      return fail(message);
    }
    try {
      parsed = parseInsights(text, plan);
    } catch (err) {
      if (err instanceof InvalidModelOutput) return fail(err.message);
      throw err;
    }
  }
  const info: CallInsightsInfo = {
    status: 'completed',
    summary: parsed.summary,
    success: parsed.success,
    data: parsed.data,
    model,
    completed_at: ctx.clock.now().toISOString(),
    ...(parsed.problems.length ? { error: parsed.problems.join('; ') } : {}),
  };
  return store(info);
}
