import type { ReceivedSocket } from './server.js';

// OpenAI Realtime GA server events as documented: session.created first; session.updated
// echoes the session; response.create produces response.created, output_item.added,
// content_part.added, response.output_audio.delta (base64 PCM16 24 kHz),
// response.output_audio_transcript.delta, …done events, output_item.done, response.done;
// response.cancel ends the response with status "cancelled"; conversation.item.truncate is
// acknowledged with conversation.item.truncated; input audio triggers speech_started/stopped.
// Errors: {"type":"error","event_id","error":{"type","code","message","param","event_id"}}.

let n = 0;
const id = (p: string) => `${p}_fake${++n}`;

export interface RealtimeResponseScript {
  /** Transcript words (deltas), one per audio chunk while they last. */
  words?: string[];
  chunks?: number;
  samplesPerChunk?: number;
  /** Answer with a function call: alone, or after the audio when `words`/`chunks` are given too. */
  functionCall?: { name: string; arguments: string };
}

export interface RealtimeScript {
  /** Audio chunks (samples each) and transcript words per response. */
  chunks?: number;
  samplesPerChunk?: number;
  words?: string[];
  delayMs?: number;
  /** Answer response.create with a function call instead of audio. */
  functionCall?: { name: string; arguments: string };
  /**
   * `energy`: server VAD as documented, by energy: input_audio_buffer.speech_started when
   * appended audio is loud (a response in progress is cancelled with reason turn_detected when
   * interrupt_response is on), speech_stopped after silence_duration_ms of quiet, then
   * committed, the user item, its input transcription and, with create_response, a response.
   * Unset: speech_started on the first append and speech_stopped on commit (adapter tests).
   */
  vad?: 'energy';
  /** What input transcription "hears", one per committed caller turn (then "Hello agent."). */
  transcripts?: string[];
  /** Responses in order; each falls back to the fields above (chunks, words, functionCall). */
  responses?: RealtimeResponseScript[];
  /** Audio deltas carry a 220 Hz tone instead of a constant per chunk. */
  tone?: boolean;
  /** Each transcript delta goes before its audio delta (the service's usual order). */
  textFirst?: boolean;
  /** Error events to send after the session is created (e.g. a rate limit). */
  errors?: Record<string, unknown>[];
  /** Told about each response as it starts (tests match items and metadata). */
  onResponse?: (r: { responseId: string; itemId: string; metadata: unknown; words: string[] }) => void;
}

interface Running {
  id: string;
  cancelled: boolean;
  reason: string | null;
}

export function realtimeServer(script: RealtimeScript = {}) {
  return (sock: ReceivedSocket) => {
    const send = (e: Record<string, unknown>) => sock.ws.readyState === 1 && sock.ws.send(JSON.stringify({ event_id: id('event'), ...e }));
    const session = { type: 'realtime', object: 'realtime.session', id: id('sess'), model: sock.query.get('model'), output_modalities: ['audio'], instructions: '', tools: [], tool_choice: 'auto', max_output_tokens: 'inf', audio: { input: { format: { type: 'audio/pcm', rate: 24000 }, turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200, create_response: true, interrupt_response: true } as Record<string, unknown> | null }, output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'alloy', speed: 1 } } };
    send({ type: 'session.created', session });
    for (const e of script.errors ?? []) sock.ws.send(JSON.stringify(e));
    let current: Running | null = null;
    let speaking = false;
    let inputItem = '';
    let lastItem: string | null = null;
    let receivedMs = 0;
    let quietMs = 0;
    let scripted = 0;
    const transcripts = [...(script.transcripts ?? [])];

    const commit = (endMs: number) => {
      speaking = false;
      send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: endMs, item_id: inputItem });
      send({ type: 'input_audio_buffer.committed', previous_item_id: lastItem, item_id: inputItem });
      const item = { id: inputItem, object: 'realtime.item', type: 'message', status: 'completed', role: 'user', content: [{ type: 'input_audio', transcript: null }] };
      send({ type: 'conversation.item.added', previous_item_id: lastItem, item });
      send({ type: 'conversation.item.done', previous_item_id: lastItem, item });
      lastItem = inputItem;
      const itemId = inputItem;
      const text = transcripts.shift() ?? 'Hello agent.';
      // Transcription runs alongside the response and usually finishes after it has begun.
      setTimeout(() => send({ type: 'conversation.item.input_audio_transcription.completed', item_id: itemId, content_index: 0, transcript: text, usage: { type: 'duration', seconds: 1 } }), 30);
    };

    const respond = async (request: { metadata?: unknown; clientEventId?: string } = {}) => {
      if (current) {
        send({ type: 'error', error: { type: 'invalid_request_error', code: 'conversation_already_has_active_response', message: `Conversation already has an active response in progress: ${current.id}. Wait until the response is finished before creating a new one.`, param: null, event_id: request.clientEventId ?? null } });
        return;
      }
      const plan: RealtimeResponseScript = script.responses?.[scripted++] ?? {};
      const withAudio = !(plan.functionCall ?? script.functionCall) || plan.words !== undefined || plan.chunks !== undefined;
      const functionCall = plan.functionCall ?? (plan.words || plan.chunks ? undefined : script.functionCall);
      const responseId = id('resp');
      const me: Running = { id: responseId, cancelled: false, reason: null };
      current = me;
      const itemId = id('item');
      const metadata = request.metadata ?? null;
      send({ type: 'response.created', response: { id: responseId, object: 'realtime.response', status: 'in_progress', output: [], metadata } });
      const finish = (status: string, output: unknown[]) => {
        if (current === me) current = null;
        const status_details = status === 'cancelled' ? { type: 'cancelled', reason: me.reason ?? 'client_cancelled' } : null;
        send({ type: 'response.done', response: { id: responseId, object: 'realtime.response', status, status_details, output, metadata, usage: { total_tokens: 50, input_tokens: 30, output_tokens: 20 } } });
      };
      const words = plan.words ?? script.words ?? ['Hi', ' there.'];
      script.onResponse?.({ responseId, itemId, metadata, words: withAudio ? words : [] });
      const callItem = (outputIndex: number) => {
        const fc = functionCall!;
        const callId = id('call');
        const fcItemId = outputIndex === 0 ? itemId : id('item');
        const item = { id: fcItemId, object: 'realtime.item', type: 'function_call', status: 'completed', call_id: callId, name: fc.name, arguments: fc.arguments };
        send({ type: 'response.output_item.added', response_id: responseId, output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } });
        send({ type: 'response.function_call_arguments.delta', response_id: responseId, item_id: fcItemId, output_index: outputIndex, call_id: callId, delta: fc.arguments });
        send({ type: 'response.function_call_arguments.done', response_id: responseId, item_id: fcItemId, output_index: outputIndex, call_id: callId, name: fc.name, arguments: fc.arguments });
        send({ type: 'response.output_item.done', response_id: responseId, output_index: outputIndex, item });
        lastItem = fcItemId;
        return item;
      };
      if (functionCall && !withAudio) {
        finish('completed', [callItem(0)]);
        return;
      }
      send({ type: 'response.output_item.added', response_id: responseId, output_index: 0, item: { id: itemId, object: 'realtime.item', type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
      send({ type: 'response.content_part.added', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, part: { type: 'audio', transcript: '' } });
      lastItem = itemId;
      const chunks = plan.chunks ?? script.chunks ?? 3;
      const samples = plan.samplesPerChunk ?? script.samplesPerChunk ?? 480;
      for (let i = 0; i < chunks && !me.cancelled; i++) {
        const pcm = script.tone ? toneChunk(samples, i * samples) : new Int16Array(samples).fill(i + 1);
        const audio = { type: 'response.output_audio.delta', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, delta: Buffer.from(pcm.buffer).toString('base64') };
        const text = words[i] ? { type: 'response.output_audio_transcript.delta', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, delta: words[i] } : null;
        if (script.textFirst && text) send(text);
        send(audio);
        if (!script.textFirst && text) send(text);
        if (script.delayMs) await new Promise((r) => setTimeout(r, script.delayMs));
      }
      const status = me.cancelled ? 'cancelled' : 'completed';
      const output: unknown[] = [];
      if (!me.cancelled) {
        send({ type: 'response.output_audio.done', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0 });
        send({ type: 'response.output_audio_transcript.done', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, transcript: words.join('') });
        const message = { id: itemId, object: 'realtime.item', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_audio', transcript: words.join('') }] };
        send({ type: 'response.output_item.done', response_id: responseId, output_index: 0, item: message });
        output.push(message);
        if (functionCall) output.push(callItem(1));
      }
      finish(status, output);
    };

    const energyVad = (audio: string) => {
      const buf = Buffer.from(audio, 'base64');
      const n = buf.length >> 1;
      let energy = 0;
      for (let i = 0; i + 1 < buf.length; i += 2) energy += Math.abs(buf.readInt16LE(i));
      const ms = (n * 1000) / 24000;
      receivedMs += ms;
      const td = session.audio.input.turn_detection;
      if (!td) return;
      const loud = n > 0 && energy / n > 500;
      if (loud) {
        quietMs = 0;
        if (speaking) return;
        speaking = true;
        inputItem = id('item');
        send({ type: 'input_audio_buffer.speech_started', audio_start_ms: Math.max(0, Math.round(receivedMs - ms - Number(td.prefix_padding_ms ?? 300))), item_id: inputItem });
        if (current && td.interrupt_response !== false) {
          current.cancelled = true;
          current.reason = 'turn_detected';
        }
      } else if (speaking) {
        quietMs += ms;
        if (quietMs >= Number(td.silence_duration_ms ?? 500)) {
          commit(Math.round(receivedMs - quietMs));
          if (td.create_response !== false) void respond();
        }
      }
    };

    sock.ws.on('message', async (data, isBinary) => {
      if (isBinary) return;
      const ev = JSON.parse(data.toString());
      switch (ev.type) {
        case 'session.update': {
          const input = ev.session?.audio?.input;
          if (input && 'turn_detection' in input) session.audio.input.turn_detection = input.turn_detection;
          send({ type: 'session.updated', session: { ...session, ...ev.session, audio: { input: { ...session.audio.input, ...(ev.session?.audio?.input ?? {}) }, output: { ...session.audio.output, ...(ev.session?.audio?.output ?? {}) } } } });
          break;
        }
        case 'input_audio_buffer.append':
          if (script.vad === 'energy') energyVad(ev.audio);
          else if (!speaking) {
            speaking = true;
            inputItem = id('item');
            send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 120, item_id: inputItem });
          }
          break;
        case 'input_audio_buffer.commit':
          commit(900);
          break;
        case 'conversation.item.truncate':
          send({ type: 'conversation.item.truncated', item_id: ev.item_id, content_index: ev.content_index, audio_end_ms: ev.audio_end_ms });
          break;
        case 'conversation.item.create': {
          const item = { id: ev.item?.id ?? id('item'), object: 'realtime.item', status: 'completed', ...ev.item };
          send({ type: 'conversation.item.added', previous_item_id: lastItem, item });
          send({ type: 'conversation.item.done', previous_item_id: lastItem, item });
          lastItem = item.id;
          break;
        }
        case 'response.cancel':
          if (current) current.cancelled = true;
          else send({ type: 'error', error: { type: 'invalid_request_error', code: 'response_cancel_not_active', message: 'Cancellation failed: no active response found', param: null, event_id: ev.event_id ?? null } });
          break;
        case 'response.create':
          await respond({ metadata: ev.response?.metadata, clientEventId: ev.event_id });
          break;
        default:
          break;
      }
    });
  };
}

function toneChunk(samples: number, offset: number): Int16Array {
  const out = new Int16Array(samples);
  for (let i = 0; i < samples; i++) out[i] = Math.round(8000 * Math.sin((2 * Math.PI * 220 * (offset + i)) / 24000));
  return out;
}

export const realtimeError = (code: string, type: string, message: string) => ({
  type: 'error',
  event_id: id('event'),
  error: { type, code, message, param: null, event_id: null },
});
