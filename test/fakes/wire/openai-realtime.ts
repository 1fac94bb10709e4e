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

export interface RealtimeScript {
  /** Audio chunks (samples each) and transcript words per response. */
  chunks?: number;
  samplesPerChunk?: number;
  words?: string[];
  delayMs?: number;
  /** Answer response.create with a function call instead of audio. */
  functionCall?: { name: string; arguments: string };
}

export function realtimeServer(script: RealtimeScript = {}) {
  return (sock: ReceivedSocket) => {
    const send = (e: Record<string, unknown>) => sock.ws.readyState === 1 && sock.ws.send(JSON.stringify({ event_id: id('event'), ...e }));
    const session = { type: 'realtime', object: 'realtime.session', id: id('sess'), model: sock.query.get('model'), output_modalities: ['audio'], instructions: '', tools: [], tool_choice: 'auto', max_output_tokens: 'inf', audio: { input: { format: { type: 'audio/pcm', rate: 24000 }, turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200, create_response: true, interrupt_response: true } }, output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'alloy', speed: 1 } } };
    send({ type: 'session.created', session });
    let cancelled = false;
    let speaking = false;
    let inputItem = '';
    sock.ws.on('message', async (data, isBinary) => {
      if (isBinary) return;
      const ev = JSON.parse(data.toString());
      switch (ev.type) {
        case 'session.update':
          send({ type: 'session.updated', session: { ...session, ...ev.session } });
          break;
        case 'input_audio_buffer.append':
          if (!speaking) {
            speaking = true;
            inputItem = id('item');
            send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 120, item_id: inputItem });
          }
          break;
        case 'input_audio_buffer.commit':
          speaking = false;
          send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: 900, item_id: inputItem });
          send({ type: 'input_audio_buffer.committed', previous_item_id: null, item_id: inputItem });
          send({ type: 'conversation.item.input_audio_transcription.completed', item_id: inputItem, content_index: 0, transcript: 'Hello agent.' });
          break;
        case 'conversation.item.truncate':
          send({ type: 'conversation.item.truncated', item_id: ev.item_id, content_index: ev.content_index, audio_end_ms: ev.audio_end_ms });
          break;
        case 'response.cancel':
          cancelled = true;
          break;
        case 'response.create': {
          cancelled = false;
          const responseId = id('resp');
          const itemId = id('item');
          send({ type: 'response.created', response: { id: responseId, object: 'realtime.response', status: 'in_progress', output: [] } });
          if (script.functionCall) {
            const callId = id('call');
            const item = { id: itemId, object: 'realtime.item', type: 'function_call', status: 'completed', call_id: callId, name: script.functionCall.name, arguments: script.functionCall.arguments };
            send({ type: 'response.output_item.added', response_id: responseId, output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } });
            send({ type: 'response.function_call_arguments.delta', response_id: responseId, item_id: itemId, output_index: 0, call_id: callId, delta: script.functionCall.arguments });
            send({ type: 'response.function_call_arguments.done', response_id: responseId, item_id: itemId, output_index: 0, call_id: callId, name: script.functionCall.name, arguments: script.functionCall.arguments });
            send({ type: 'response.output_item.done', response_id: responseId, output_index: 0, item });
            send({ type: 'response.done', response: { id: responseId, object: 'realtime.response', status: 'completed', output: [item], usage: { total_tokens: 30, input_tokens: 20, output_tokens: 10 } } });
            break;
          }
          send({ type: 'response.output_item.added', response_id: responseId, output_index: 0, item: { id: itemId, object: 'realtime.item', type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
          send({ type: 'response.content_part.added', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, part: { type: 'audio', transcript: '' } });
          const words = script.words ?? ['Hi', ' there.'];
          const chunks = script.chunks ?? 3;
          for (let i = 0; i < chunks && !cancelled; i++) {
            const pcm = new Int16Array(script.samplesPerChunk ?? 480).fill(i + 1);
            send({ type: 'response.output_audio.delta', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, delta: Buffer.from(pcm.buffer).toString('base64') });
            if (words[i]) send({ type: 'response.output_audio_transcript.delta', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, delta: words[i] });
            if (script.delayMs) await new Promise((r) => setTimeout(r, script.delayMs));
          }
          const status = cancelled ? 'cancelled' : 'completed';
          if (!cancelled) {
            send({ type: 'response.output_audio.done', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0 });
            send({ type: 'response.output_audio_transcript.done', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, transcript: words.join('') });
          }
          send({ type: 'response.done', response: { id: responseId, object: 'realtime.response', status, output: [], usage: { total_tokens: 50, input_tokens: 30, output_tokens: 20 } } });
          break;
        }
        default:
          break;
      }
    });
  };
}

export const realtimeError = (code: string, type: string, message: string) => ({
  type: 'error',
  event_id: id('event'),
  error: { type, code, message, param: null, event_id: null },
});
