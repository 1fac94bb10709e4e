import type { AppContext } from '../shared/app-context.js';
import type { SessionRow } from '../db/repos/voice-sessions.js';
import type { CallPipeline } from './call-pipeline.js';
import { EchoCall } from './echo-call.js';

export type PipelineKind = 'agent' | 'echo';

/** The agent's providers cannot be reached or configured: close 4453, the call fails. */
export class PipelineUnavailable extends Error {}

export interface PipelineLog {
  warn: (o: object, m: string) => void;
}

/** Builds the conversation for a call (src/conversation); injected to keep media free of it. */
export type AgentPipelineFactory = (ctx: AppContext, row: SessionRow, log: PipelineLog) => Promise<CallPipeline>;

/** Builds what runs a call that just connected. */
export async function openPipeline(ctx: AppContext, row: SessionRow, kind: PipelineKind, log: PipelineLog, agent: AgentPipelineFactory | undefined): Promise<CallPipeline> {
  if (kind === 'echo') return new EchoCall(row.sample_rate_in, row.sample_rate_out);
  if (!agent) throw new Error('no agent pipeline factory');
  return agent(ctx, row, log);
}
