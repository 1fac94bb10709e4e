import type { AppContext } from '../app-context.js';
import type { SessionRow } from '../db/repos/voice-sessions.js';
import type { CallPipeline } from './call-pipeline.js';
import { EchoCall } from './echo-call.js';

export type PipelineKind = 'agent' | 'echo';

/** The agent's providers cannot be reached or configured: close 4453, the call fails. */
export class PipelineUnavailable extends Error {}

interface Log {
  warn: (o: object, m: string) => void;
}

/** Builds what runs a call that just connected. */
export async function openPipeline(ctx: AppContext, row: SessionRow, kind: PipelineKind, log: Log): Promise<CallPipeline> {
  void ctx;
  void log;
  if (kind === 'echo') return new EchoCall(row.sample_rate_in, row.sample_rate_out);
  return new EchoCall(row.sample_rate_in, row.sample_rate_out);
}
