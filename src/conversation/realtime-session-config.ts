import type { RealtimeSessionConfig, RealtimeTurnDetection } from '../providers/types.js';
import type { CallConfig } from './call-config.js';
import { toolsFor } from './tools.js';

// What the realtime session is opened with (session.update, docs/realtime.md) and the
// instructions of the responses that say fixed words.

export const DEFAULT_INPUT_TRANSCRIPTION_MODEL = 'gpt-4o-mini-transcribe';

export interface RealtimeSessionOptions {
  /** Transcription model for the caller's words (default gpt-4o-mini-transcribe). */
  inputTranscriptionModel?: string;
  /** Overrides of the server VAD settings. */
  turnDetection?: Partial<RealtimeTurnDetection>;
}

export function realtimeSessionConfig(config: CallConfig, opts: RealtimeSessionOptions): RealtimeSessionConfig {
  const agent = config.agent;
  return {
    instructions: agent.prompt,
    voice: config.adapters.realtime!.voice,
    // The caller's turn ends after the realtime stage's endpointing_ms of silence (default 500).
    turnDetection: { type: 'server_vad', prefixPaddingMs: 300, silenceDurationMs: config.endpointingMs, createResponse: true, interruptResponse: true, ...(opts.turnDetection ?? {}) },
    tools: toolsFor(agent),
    inputTranscriptionModel: opts.inputTranscriptionModel ?? DEFAULT_INPUT_TRANSCRIPTION_MODEL,
    inputTranscriptionLanguage: agent.language,
  };
}

/** Instructions for a response that must say fixed words (greeting, goodbye, reminder, filler). */
export function sayExactly(text: string): string {
  return `Say exactly the following, word for word, and nothing else: "${text}"`;
}
