import type WebSocket from 'ws';
import { abortedError, ProviderError, protocolError, safeCode, timeoutError } from '../errors.js';
import type { AdapterOptions, RealtimeAdapter, RealtimeEvent, RealtimeResponseOptions, RealtimeSession, RealtimeSessionConfig, Timeouts } from '../types.js';
import { parseJsonObject } from '../json.js';
import { OPENAI_API } from '../llm/openai.js';
import { providerCall, type ProviderApi } from '../provider-call.js';
import { FunctionCallItem, isMappedType, ServerEvent } from './openai-events.js';
import { AsyncQueue } from './queue.js';
import { closeError, connectWs, pcmToBase64 } from './ws.js';

// OpenAI Realtime (GA) over WebSocket: wss://api.openai.com/v1/realtime?model=…, bearer key,
// no OpenAI-Beta header. The server speaks first (session.created). Client events:
// session.update (session.type "realtime", audio.input/output formats audio/pcm @ 24 kHz,
// turn_detection, voice, instructions, tools), input_audio_buffer.append/commit/clear,
// conversation.item.truncate, conversation.item.create (function_call_output, user
// input_text message), response.create (instructions, metadata), response.cancel. Every
// client event carries an event_id; an `error` about one names it in error.event_id.
// Server events mapped here: session.updated, response.created,
// input_audio_buffer.speech_started/stopped, conversation.item.input_audio_transcription.completed,
// response.output_audio.delta, response.output_audio_transcript.delta/done,
// response.output_item.done (function calls), response.done, error.

const PROVIDER = 'OpenAI Realtime';
const REALTIME_API: ProviderApi = { ...OPENAI_API, name: PROVIDER };
export const REALTIME_RATE_HZ = 24000;
/** Errors that only say a cancel/truncate raced the end of a response. */
const BENIGN = new Set(['response_cancel_not_active']);

export function realtimeErrorKind(code: string | undefined, type: string | undefined): ProviderError['kind'] {
  const s = `${code ?? ''} ${type ?? ''}`;
  if (/invalid_api_key|authentication|unauthori[sz]ed|permission/i.test(s)) return 'auth';
  if (/rate_limit|quota|insufficient_quota/i.test(s)) return 'rate_limit';
  if (/server_error|internal|overloaded|unavailable/i.test(s)) return 'unavailable';
  return 'bad_request';
}

export function sessionUpdatePayload(model: string, c: RealtimeSessionConfig): Record<string, unknown> {
  const input: Record<string, unknown> = { format: { type: 'audio/pcm', rate: REALTIME_RATE_HZ } };
  if (c.turnDetection !== undefined) {
    const td = c.turnDetection;
    input.turn_detection = td === null ? null : {
      type: td.type,
      ...(td.type === 'server_vad'
        ? {
            ...(td.threshold !== undefined ? { threshold: td.threshold } : {}),
            ...(td.prefixPaddingMs !== undefined ? { prefix_padding_ms: td.prefixPaddingMs } : {}),
            ...(td.silenceDurationMs !== undefined ? { silence_duration_ms: td.silenceDurationMs } : {}),
          }
        : {}),
      create_response: td.createResponse ?? true,
      interrupt_response: td.interruptResponse ?? true,
    };
  }
  if (c.inputTranscriptionModel) {
    const lang = c.inputTranscriptionLanguage?.split('-')[0]?.toLowerCase();
    input.transcription = { model: c.inputTranscriptionModel, ...(lang && /^[a-z]{2}$/.test(lang) ? { language: lang } : {}) };
  }
  const output: Record<string, unknown> = { format: { type: 'audio/pcm', rate: REALTIME_RATE_HZ } };
  if (c.voice) output.voice = c.voice;
  if (c.speed !== undefined) output.speed = c.speed;
  const session: Record<string, unknown> = { type: 'realtime', model, output_modalities: ['audio'], audio: { input, output } };
  if (c.instructions !== undefined) session.instructions = c.instructions;
  if (c.tools) {
    session.tools = c.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters }));
    session.tool_choice = 'auto';
  }
  if (c.maxOutputTokens !== undefined) session.max_output_tokens = c.maxOutputTokens;
  return session;
}

/** A provider's metadata object as string pairs (anything else dropped). */
function stringMap(v: unknown): Record<string, string> | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

export class OpenAiRealtime implements RealtimeAdapter {
  readonly provider = 'openai';

  constructor(
    readonly model: string,
    private readonly opts: AdapterOptions,
  ) {}

  async connect(o: { session?: RealtimeSessionConfig; signal: AbortSignal }): Promise<RealtimeSession> {
    const query = new URLSearchParams({ model: this.model });
    const call = providerCall(REALTIME_API, this.opts, { path: '/v1/realtime', query, signal: o.signal, websocket: true });
    const ws = await connectWs(call);
    const session = new OpenAiRealtimeSession(ws, this.model, call.timeouts, o.signal);
    await session.ready; // session.created, or the error that came instead
    if (o.session) session.update(o.session);
    return session;
  }
}

class OpenAiRealtimeSession implements RealtimeSession {
  readonly sampleRateHz = REALTIME_RATE_HZ;
  readonly ready: Promise<void>;
  private readonly queue: AsyncQueue<RealtimeEvent>;
  private done = false;
  private created = false;
  private resolveReady!: () => void;
  private rejectReady!: (e: ProviderError) => void;
  private lastReceivedAt = Date.now();
  /** A response was asked for (or started) and has not finished. */
  private responding = false;
  private readonly ticker: NodeJS.Timeout;
  private readonly firstByteTimer: NodeJS.Timeout;
  private eventSeq = 0;

  constructor(
    private readonly ws: WebSocket,
    private readonly model: string,
    private readonly timeouts: Timeouts,
    private readonly signal: AbortSignal,
  ) {
    this.queue = new AsyncQueue(() => this.close());
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => {});
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on('close', (code, reason) => this.stop(this.done ? null : closeError(PROVIDER, code, reason.toString())));
    ws.on('error', () => {});
    signal.addEventListener('abort', this.onAbort, { once: true });
    this.firstByteTimer = setTimeout(() => this.stop(timeoutError(PROVIDER, 'first byte', timeouts.firstByteMs)), timeouts.firstByteMs);
    this.ticker = setInterval(() => {
      if (this.responding && Date.now() - this.lastReceivedAt > timeouts.idleMs) this.stop(timeoutError(PROVIDER, 'idle', timeouts.idleMs));
    }, Math.max(20, timeouts.idleMs / 4));
    ws.resume();
  }

  private onAbort = () => this.stop(abortedError(PROVIDER));

  private send(type: string, fields: Record<string, unknown> = {}): string {
    const eventId = `evt_vas_${++this.eventSeq}`;
    if (this.done || this.ws.readyState !== this.ws.OPEN) return eventId;
    this.ws.send(JSON.stringify({ type, event_id: eventId, ...fields }));
    return eventId;
  }

  update(session: RealtimeSessionConfig): void {
    this.send('session.update', { session: sessionUpdatePayload(this.model, session) });
  }

  appendAudio(pcm: Int16Array): void {
    if (pcm.length) this.send('input_audio_buffer.append', { audio: pcmToBase64(pcm) });
  }

  commitAudio(): void {
    this.send('input_audio_buffer.commit');
  }

  clearAudio(): void {
    this.send('input_audio_buffer.clear');
  }

  truncate(itemId: string, contentIndex: number, audioEndMs: number): void {
    this.send('conversation.item.truncate', { item_id: itemId, content_index: contentIndex, audio_end_ms: Math.max(0, Math.round(audioEndMs)) });
  }

  createResponse(options: RealtimeResponseOptions = {}): string {
    this.markResponding();
    const response: Record<string, unknown> = {};
    if (options.instructions !== undefined) response.instructions = options.instructions;
    if (options.metadata) response.metadata = options.metadata;
    return this.send('response.create', Object.keys(response).length ? { response } : {});
  }

  cancel(): void {
    this.send('response.cancel');
  }

  sendToolResult(callId: string, output: string): void {
    this.send('conversation.item.create', { item: { type: 'function_call_output', call_id: callId, output } });
  }

  sendUserText(text: string): void {
    this.send('conversation.item.create', { item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
  }

  close(): void {
    if (this.done) return;
    this.done = true;
    this.cleanup();
    this.queue.end();
    this.rejectReady(abortedError(PROVIDER));
    this.ws.close(1000);
    // A peer that never answers the close handshake is cut off.
    setTimeout(() => this.ws.terminate(), 1000).unref();
  }

  private markResponding(): void {
    if (!this.responding) this.lastReceivedAt = Date.now();
    this.responding = true;
  }

  private cleanup(): void {
    clearInterval(this.ticker);
    clearTimeout(this.firstByteTimer);
    this.signal.removeEventListener('abort', this.onAbort);
  }

  private stop(err: ProviderError | null): void {
    if (this.done) return;
    this.done = true;
    this.cleanup();
    if (err) {
      this.queue.fail(err);
      this.rejectReady(err);
    } else this.queue.end();
    this.ws.terminate();
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.done) return;
    this.lastReceivedAt = Date.now();
    let raw: Record<string, unknown>;
    try {
      if (isBinary) throw new Error('binary');
      raw = parseJsonObject(data.toString('utf8'));
      if (typeof raw.type !== 'string') throw new Error('no type');
    } catch (err) {
      return this.stop(protocolError(PROVIDER, 'an event that is not JSON with a type', err));
    }
    // rate_limits.updated, conversation.item.*, response.output_item.added, …: not parsed.
    if (!isMappedType(raw.type)) return;
    const ev = ServerEvent.safeParse(raw);
    if (!ev.success) return this.stop(protocolError(PROVIDER, `a ${raw.type} event of an unexpected shape`, ev.error));
    this.handle(ev.data);
  }

  private handle(ev: ServerEvent): void {
    const push = (e: RealtimeEvent) => this.queue.push(e);
    switch (ev.type) {
      case 'session.created':
        this.created = true;
        clearTimeout(this.firstByteTimer);
        this.resolveReady();
        break;
      case 'session.updated':
        push({ type: 'session_updated' });
        break;
      case 'input_audio_buffer.speech_started':
        push({ type: 'speech_started', itemId: ev.item_id, audioStartMs: ev.audio_start_ms ?? 0 });
        break;
      case 'input_audio_buffer.speech_stopped':
        push({ type: 'speech_stopped', itemId: ev.item_id, audioEndMs: ev.audio_end_ms ?? 0 });
        break;
      case 'conversation.item.input_audio_transcription.completed':
        push({ type: 'input_transcript', itemId: ev.item_id, text: ev.transcript ?? '' });
        break;
      case 'response.created':
        this.markResponding();
        push({ type: 'response_created', responseId: ev.response.id, metadata: stringMap(ev.response.metadata) });
        break;
      case 'response.output_audio.delta': {
        const bytes = Buffer.from(ev.delta, 'base64');
        const pcm = new Int16Array(bytes.length >> 1);
        new Uint8Array(pcm.buffer).set(bytes.subarray(0, pcm.length * 2));
        push({ type: 'audio', responseId: ev.response_id, itemId: ev.item_id, contentIndex: ev.content_index ?? 0, pcm });
        break;
      }
      case 'response.output_audio_transcript.delta':
        push({ type: 'transcript_delta', responseId: ev.response_id, itemId: ev.item_id, text: ev.delta ?? '' });
        break;
      case 'response.output_audio_transcript.done':
        push({ type: 'transcript_done', responseId: ev.response_id, itemId: ev.item_id, text: ev.transcript ?? '' });
        break;
      case 'response.output_item.done': {
        if (ev.item?.type !== 'function_call') break; // a message's audio and text came as deltas
        const item = FunctionCallItem.safeParse(ev.item);
        if (!item.success) return this.stop(protocolError(PROVIDER, 'a function_call item without id, call_id or name', item.error));
        const c = item.data;
        push({ type: 'tool_call', responseId: ev.response_id, itemId: c.id, call: { id: c.call_id, name: c.name, arguments: c.arguments || '{}' } });
        break;
      }
      case 'response.done': {
        this.responding = false;
        const r = ev.response;
        const u = r.usage;
        const reason = safeCode(r.status_details?.reason);
        const errorCode = safeCode(r.status_details?.error?.code) ?? safeCode(r.status_details?.error?.type);
        push({
          type: 'response_done',
          responseId: r.id,
          status: r.status ?? 'completed',
          usage: u ? { inputTokens: u.input_tokens ?? 0, outputTokens: u.output_tokens ?? 0 } : null,
          ...(reason ? { reason } : {}),
          ...(errorCode ? { errorCode } : {}),
          metadata: stringMap(r.metadata),
        });
        break;
      }
      case 'error': {
        const code = safeCode(ev.error?.code);
        const type = safeCode(ev.error?.type);
        if (code && BENIGN.has(code)) break;
        const e = new ProviderError(realtimeErrorKind(code, type), `${PROVIDER} reported an error${code ?? type ? ` (${code ?? type})` : ''}`, { provider: PROVIDER, code: code ?? type });
        if (!this.created) return this.stop(e);
        const clientEventId = typeof ev.error?.event_id === 'string' ? ev.error.event_id : undefined;
        push({ type: 'error', error: e, ...(clientEventId ? { clientEventId } : {}) });
        break;
      }
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<RealtimeEvent> {
    return this.queue[Symbol.asyncIterator]();
  }
}
