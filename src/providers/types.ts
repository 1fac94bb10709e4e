// One interface per pipeline stage. The conversation engine only sees these; each provider
// file maps them onto its own wire protocol. All adapters throw `ProviderError` (errors.ts).
// PCM is always 16-bit signed, mono, host order in an Int16Array; rates are in Hz.

// ---------------------------------------------------------------- common

export interface ProviderEndpoint {
  /** The account's API key (null for `local`). Travels only in headers or the first frame. */
  apiKey: string | null;
  /** The account's base_url, or null/undefined for the provider's own host. */
  baseUrl?: string | null;
}

export interface Timeouts {
  /** TCP/TLS (and WebSocket handshake) connect. */
  connectMs: number;
  /** From sending the request to the first byte of the answer (headers / first frame). */
  firstByteMs: number;
  /** Longest silence between two pieces of a streamed answer. */
  idleMs: number;
}

export interface AdapterOptions extends ProviderEndpoint {
  timeouts?: Partial<Timeouts>;
  /** Extra tries on connect failures before any output (default 2). Never after output. */
  connectRetries?: number;
  /**
   * ALLOW_PRIVATE_URLS: may the base_url reach private and loopback addresses? When false,
   * only public addresses are connected to (checked at connect time). Default true: callers
   * that build adapters for calls pass the deployment's setting.
   */
  allowPrivateUrls?: boolean;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 5000, firstByteMs: 15000, idleMs: 15000 };

export function resolveTimeouts(t: Partial<Timeouts> | undefined): Timeouts {
  return { ...DEFAULT_TIMEOUTS, ...(t ?? {}) };
}

// ---------------------------------------------------------------- LLM

export interface LlmToolCall {
  id: string;
  name: string;
  /** JSON text exactly as the model wrote it. */
  arguments: string;
}

export type LlmMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: LlmToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface LlmTool {
  name: string;
  description?: string;
  /** JSON Schema object. */
  parameters: Record<string, unknown>;
}

export interface LlmRequest {
  messages: LlmMessage[];
  tools?: LlmTool[];
  temperature?: number;
  maxTokens?: number;
  signal: AbortSignal;
}

/** Why generation stopped, in one vocabulary for every provider. */
export type LlmFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'other';

export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
}

export type LlmEvent =
  | { type: 'text'; text: string }
  /** Emitted once per call, complete (arguments assembled across deltas). */
  | { type: 'tool_call'; call: LlmToolCall }
  | { type: 'end'; finishReason: LlmFinishReason; usage: LlmUsage | null };

export interface LlmAdapter {
  readonly provider: string;
  readonly model: string;
  /** Streams one completion. Breaking out of the loop or aborting `signal` cancels the request. */
  stream(request: LlmRequest): AsyncIterable<LlmEvent>;
}

// ---------------------------------------------------------------- TTS

export interface TtsRequest {
  text: string;
  voice: string;
  model: string;
  /** The rate the engine would like; the adapter may answer at another (see outputSampleRateHz). */
  sampleRateHz: number;
  speed?: number;
  signal: AbortSignal;
}

export interface TtsAdapter {
  readonly provider: string;
  /** The rate of the PCM `synthesize` yields for a requested rate; the engine resamples the rest. */
  outputSampleRateHz(requestedHz: number): number;
  /** PCM chunks as they arrive; cancel by aborting `signal` or breaking out of the loop. */
  synthesize(request: TtsRequest): AsyncIterable<Int16Array>;
}

/** Token streaming into one utterance (ElevenLabs stream-input). */
export interface TtsStream extends AsyncIterable<Int16Array> {
  readonly sampleRateHz: number;
  sendText(chunk: string): void;
  /** Synthesize what has been sent so far now (sentence end). */
  flush(): void;
  /** No more text: the audio iterator ends after the last chunk. */
  end(): void;
  /** Stop at once (barge-in); the iterator ends without error. */
  close(): void;
}

export interface StreamingTtsAdapter extends TtsAdapter {
  open(request: Omit<TtsRequest, 'text'>): Promise<TtsStream>;
}

// ---------------------------------------------------------------- STT

export interface SttOpenOptions {
  sampleRateHz: number;
  /** BCP 47 tag, e.g. `en-US`. */
  language?: string;
  /** Silence that ends an utterance (Deepgram `endpointing`), default 500. */
  endpointingMs?: number;
  signal: AbortSignal;
}

export type SttEvent =
  | { type: 'interim'; text: string }
  /** `speechFinal`: the provider thinks the speaker finished (Deepgram `speech_final`). */
  | { type: 'final'; text: string; speechFinal: boolean }
  /** Deepgram `UtteranceEnd`: silence after the last final word. */
  | { type: 'utterance_end' }
  /**
   * One utterance could not be transcribed but the session goes on (utterance-based
   * providers: a 429/5xx/timeout on one upload). Fatal errors end the iterator instead.
   */
  | { type: 'error'; error: import('./errors.js').ProviderError };

export interface SttSession extends AsyncIterable<SttEvent> {
  /** Caller audio at `sampleRateHz`; never blocks; copied, so the caller may reuse its buffer. */
  write(pcm: Int16Array): void;
  /**
   * The engine's VAD says the caller stopped. Streaming providers are asked to finalize;
   * utterance-based providers transcribe what was written since the last commit.
   */
  commit(): void;
  /** No more audio: remaining results are delivered, then the iterator ends. */
  finish(): Promise<void>;
  /** Drop everything now. */
  close(): void;
}

export interface SttAdapter {
  readonly provider: string;
  /** True when the provider finds utterance ends itself (interim results, endpointing). */
  readonly streaming: boolean;
  open(options: SttOpenOptions): Promise<SttSession>;
}

// ---------------------------------------------------------------- realtime (speech to speech)

export interface RealtimeTurnDetection {
  type: 'server_vad' | 'semantic_vad';
  silenceDurationMs?: number;
  prefixPaddingMs?: number;
  threshold?: number;
  /** Let the server start a response when the caller stops (default true). */
  createResponse?: boolean;
  /** Let the server cancel the response when the caller speaks (default true). */
  interruptResponse?: boolean;
}

export interface RealtimeSessionConfig {
  instructions?: string;
  voice?: string;
  /** null turns server VAD off (the engine then commits and creates responses itself). */
  turnDetection?: RealtimeTurnDetection | null;
  tools?: LlmTool[];
  maxOutputTokens?: number;
  /** Output speed multiple, 0.25–1.5 (only between responses). */
  speed?: number;
  /** Transcription model for the caller's audio (e.g. `gpt-4o-mini-transcribe`). */
  inputTranscriptionModel?: string;
  /** The caller's language for that transcription (ISO 639-1, e.g. `en`). */
  inputTranscriptionLanguage?: string;
}

export interface RealtimeResponseOptions {
  /** Instructions for this response only (the session's stay as they are). */
  instructions?: string;
  /** Up to 16 string pairs the provider echoes on the response's events (who asked for it). */
  metadata?: Record<string, string>;
}

export type RealtimeEvent =
  | { type: 'session_updated' }
  /** A response began: one we asked for (its metadata) or one the server's VAD started (none). */
  | { type: 'response_created'; responseId: string; metadata: Record<string, string> | null }
  | { type: 'speech_started'; itemId: string; audioStartMs: number }
  | { type: 'speech_stopped'; itemId: string; audioEndMs: number }
  /** The caller's words, when input transcription is on. */
  | { type: 'input_transcript'; itemId: string; text: string }
  /** PCM16 at 24 kHz. */
  | { type: 'audio'; responseId: string; itemId: string; contentIndex: number; pcm: Int16Array }
  | { type: 'transcript_delta'; responseId: string; itemId: string; text: string }
  | { type: 'transcript_done'; responseId: string; itemId: string; text: string }
  | { type: 'tool_call'; responseId: string; itemId: string; call: LlmToolCall }
  | {
      type: 'response_done';
      responseId: string;
      status: string;
      usage: LlmUsage | null;
      /** status_details.reason (`turn_detected`, `client_cancelled`, `max_output_tokens`…), when given. */
      reason?: string;
      /** status_details.error.code of a failed response, when given. */
      errorCode?: string;
      metadata?: Record<string, string> | null;
    }
  /**
   * A non-fatal error the server reported (the socket stays open). Fatal ones end the iterator.
   * `clientEventId`: the event of ours it answers, when the server says (see createResponse).
   */
  | { type: 'error'; error: import('./errors.js').ProviderError; clientEventId?: string };

export interface RealtimeSession extends AsyncIterable<RealtimeEvent> {
  readonly sampleRateHz: 24000;
  update(session: RealtimeSessionConfig): void;
  /** PCM16 at 24 kHz; encoded at once, so the caller may reuse its buffer. */
  appendAudio(pcm: Int16Array): void;
  commitAudio(): void;
  clearAudio(): void;
  /** After barge-in: keep only the first `audioEndMs` of the assistant item the caller heard. */
  truncate(itemId: string, contentIndex: number, audioEndMs: number): void;
  /** Asks for a response; returns the id of the event sent (errors about it carry that id). */
  createResponse(options?: RealtimeResponseOptions): string;
  cancel(): void;
  /** The answer to a tool call (a function_call_output item). Call createResponse() after. */
  sendToolResult(callId: string, output: string): void;
  /** Adds a user text message to the conversation (e.g. the keys the caller pressed). */
  sendUserText(text: string): void;
  close(): void;
}

export interface RealtimeAdapter {
  readonly provider: string;
  readonly model: string;
  connect(options: { session?: RealtimeSessionConfig; signal: AbortSignal }): Promise<RealtimeSession>;
}
