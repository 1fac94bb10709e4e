import type { AppContext } from '../shared/app-context.js';
import type { SessionRow } from '../db/repos/voice-sessions.js';
import type { CallPipeline } from '../media/call-pipeline.js';
import type { PipelineLog } from '../media/pipelines.js';
import type { RegistryOptions } from '../providers/registry.js';
import { loadCallConfig, type AdapterFactory } from './call-config.js';
import { CascadeCall } from './cascade-call.js';
import { RealtimeCall } from './realtime-call.js';
import { markAccountInvalid } from '../providers/accounts.js';
import type { InterruptionOptions } from './interruption.js';
import type { ToolRunner } from './tools.js';
import { callToolWebhook } from '../tools/tool-webhook.js';
import { attachVoicemail, type VoicemailOptions } from './voicemail.js';
import { carrierTransferRunner } from './transfer-tool.js';
import type { TransferOptions } from '../telephony/transfer.js';

/** Customer tools answer through the agent's signed `tool.call` webhook (contract §4). */
export function webhookToolRunner(ctx: AppContext, row: SessionRow, agentId: string, url: string): ToolRunner {
  return (tool, args, signal) => callToolWebhook(ctx, { projectId: row.project_id, agentId, sessionId: row.id, url, tool, arguments: args, signal });
}

export { CascadeCall } from './cascade-call.js';
export { RealtimeCall, type RealtimeCallOptions } from './realtime-call.js';
export { DEFAULT_INTERRUPTION, type InterruptionOptions } from './interruption.js';
export type { AdapterFactory, CallConfig } from './call-config.js';

export interface ConversationOptions {
  adapterFactory?: AdapterFactory;
  registry?: RegistryOptions;
  interruption?: Partial<InterruptionOptions>;
  /** Runs customer tools; default: the signed tool.call webhook. */
  toolRunner?: (ctx: AppContext, row: SessionRow, agentId: string, url: string) => ToolRunner;
  /** Transfers' carrier polling (tests shorten it). */
  transfer?: TransferOptions;
  /** Voicemail's no-beep fallback (tests shorten it). */
  voicemail?: Pick<VoicemailOptions, 'noBeepFallbackMs'>;
  /** Called with each conversation as it is built (the turn benchmark's probes). */
  created?: (call: CallPipeline) => void;
}

/** Builds the conversation engine for a session that just connected. */
export async function createConversation(ctx: AppContext, row: SessionRow, log: PipelineLog, opts: ConversationOptions = {}): Promise<CallPipeline> {
  // Provider base_urls get the same outbound address policy as webhooks (contract §3).
  const registry = { allowPrivateUrls: ctx.config.ALLOW_PRIVATE_URLS, ...opts.registry };
  const config = await loadCallConfig(ctx, row, { adapterFactory: opts.adapterFactory, registry });
  const url = config.agent.toolWebhookUrl;
  const runTool = url ? (opts.toolRunner ?? webhookToolRunner)(ctx, row, config.agent.id, url) : undefined;
  const accountInvalid = (accountId: string, detail: string) => void markAccountInvalid(ctx, accountId, detail);
  const { transferDestinations: destinations = [], transferTimeoutSeconds = null } = config.agent;
  const transfer = destinations.length ? carrierTransferRunner(ctx, row, { destinations, timeoutSeconds: transferTimeoutSeconds, language: config.agent.language }, opts.transfer) : undefined;
  if (config.agent.pipelineMode === 'realtime') {
    const realtime = new RealtimeCall(config, { interruption: opts.interruption, runTool, transfer, log, accountInvalid });
    attachVoicemail(ctx, config, realtime.callShell, { ...opts.voicemail, log: ctx.log });
    opts.created?.(realtime);
    return realtime;
  }
  const call = new CascadeCall(config, { interruption: opts.interruption, runTool, transfer, log, accountInvalid });
  attachVoicemail(ctx, config, call.callShell, { ...opts.voicemail, log: ctx.log });
  opts.created?.(call);
  return call;
}
