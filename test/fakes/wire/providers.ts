import type { ServerResponse } from 'node:http';
import { WireFake, jsonResponse, sleep, type ReceivedRequest, type ReceivedSocket } from './server.js';
import { chatChunk, parseMultipart, usageChunk, writeChatStream, writePcm } from './openai.js';
import { blockStop, messageDelta, messageStart, messageStop, textDelta, textStart, writeMessageStream } from './anthropic.js';
import { metadata, results, utteranceEnd } from './deepgram.js';
import { audioMessage, finalMessage } from './elevenlabs.js';
import { realtimeServer, type RealtimeScript } from './openai-realtime.js';

// Every provider on one local port with plausible default behaviour, for engine and call
// tests: LLMs answer "You said: …" (or the next scripted reply), TTS returns a tone whose
// length follows the text, Deepgram live finds utterances by energy (speech, then
// `endpointing` ms of quiet → final + speech_final, then UtteranceEnd) and answers with the
// next scripted transcript, OpenAI transcriptions answer the next scripted transcript.
// Point each account's base_url at `fake.baseUrl`.

export interface ProviderScript {
  /** Replies the LLMs give, in order (then they echo the caller). */
  replies?: string[];
  /** What the STT fakes "hear", in order (then "hello"). */
  transcripts?: string[];
  /** Milliseconds of tone per character of TTS text (default 40). */
  msPerChar?: number;
  /** Delay between streamed pieces (default 5 ms). */
  pieceDelayMs?: number;
  realtime?: RealtimeScript;
}

export function tone(rateHz: number, durationMs: number, freqHz = 220, amplitude = 8000): Int16Array {
  const n = Math.max(1, Math.round((rateHz * durationMs) / 1000));
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * freqHz * i) / rateHz));
  return out;
}

function lastUserText(messages: { role: string; content: unknown }[]): string {
  const m = [...messages].reverse().find((x) => x.role === 'user');
  if (!m) return '';
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) return m.content.map((b: { text?: string }) => b.text ?? '').join(' ');
  return '';
}

export async function startProviderFakes(script: ProviderScript = {}): Promise<WireFake & { script: ProviderScript }> {
  const fake = await new WireFake().start();
  const s = Object.assign(script, {});
  const nextReply = (messages: { role: string; content: unknown }[]) => s.replies?.shift() ?? `You said: ${lastUserText(messages).trim() || 'nothing'}`;
  const nextTranscript = () => s.transcripts?.shift() ?? 'hello';
  const delay = () => s.pieceDelayMs ?? 5;
  const words = (text: string) => text.split(/(?<=\s)/);

  fake.on('POST /v1/chat/completions', (req: ReceivedRequest, res: ServerResponse) => {
    const body = JSON.parse(req.body.toString());
    const ws = words(nextReply(body.messages));
    return writeChatStream(res, [chatChunk({ role: 'assistant', content: '' }), ...ws.map((w) => chatChunk({ content: w })), chatChunk({}, 'stop'), usageChunk(10, ws.length)], { delayMs: delay() });
  });
  fake.on('POST /v1/messages', (req, res) => {
    const body = JSON.parse(req.body.toString());
    const ws = words(nextReply(body.messages));
    return writeMessageStream(res, [messageStart(10), textStart(0), ...ws.map((w) => textDelta(0, w)), blockStop(0), messageDelta('end_turn', ws.length), messageStop], { delayMs: delay() });
  });
  fake.on('POST /v1/audio/speech', (req, res) => {
    const body = JSON.parse(req.body.toString());
    return writePcm(res, tone(24000, String(body.input).length * (s.msPerChar ?? 40)), 4800, delay());
  });
  fake.on('POST /v1/speak', (req, res) => {
    const body = JSON.parse(req.body.toString());
    const rate = Number(req.query.get('sample_rate') ?? 24000);
    return writePcm(res, tone(rate, String(body.text).length * (s.msPerChar ?? 40)), 3200, delay());
  });
  fake.on('POST /v1/audio/transcriptions', (req, res) => {
    parseMultipart(req.body, String(req.headers['content-type']));
    jsonResponse(res, 200, { text: nextTranscript() });
  });
  fake.onWebSocket('/v1/realtime', (sock) => realtimeServer(s.realtime)(sock));
  fake.onWebSocket('/v1/text-to-speech/', (sock) => elevenLabs(sock, s));
  fake.onWebSocket('/v1/listen', (sock) => deepgramLive(sock, nextTranscript));
  return Object.assign(fake, { script: s });
}

function elevenLabs(sock: ReceivedSocket, s: ProviderScript): void {
  const rate = Number((sock.query.get('output_format') ?? 'pcm_16000').split('_')[1]);
  let pending = '';
  const speak = () => {
    if (!pending.trim()) return;
    sock.ws.send(JSON.stringify(audioMessage(tone(rate, pending.length * (s.msPerChar ?? 40)), pending)));
    pending = '';
  };
  sock.ws.on('message', (data) => {
    const msg = JSON.parse(data.toString());
    if (sock.messages.length === 1) return; // the opening message
    if (msg.text) pending += msg.text;
    if (msg.flush) speak();
    if (msg.text === '') {
      speak();
      sock.ws.send(JSON.stringify(finalMessage));
      sock.ws.close(1000);
    }
  });
}

/** Energy-based endpointing, as Deepgram does it with `endpointing` and `utterance_end_ms`. */
function deepgramLive(sock: ReceivedSocket, nextTranscript: () => string): void {
  const rate = Number(sock.query.get('sample_rate') ?? 16000);
  const endpointingMs = Number(sock.query.get('endpointing') ?? 10);
  const utteranceEndMs = Number(sock.query.get('utterance_end_ms') ?? 1000);
  let receivedMs = 0;
  let speaking = false;
  let quietMs = 0;
  let sinceFinalMs = -1;
  let heard = '';
  const send = (m: unknown) => sock.ws.readyState === 1 && sock.ws.send(JSON.stringify(m));
  const finalize = (speechFinal: boolean, fromFinalize: boolean) => {
    if (!speaking) return;
    speaking = false;
    send(results(heard, { isFinal: true, speechFinal, fromFinalize, start: receivedMs / 1000 - 1, duration: 1 }));
    sinceFinalMs = 0;
  };
  sock.ws.on('message', (data, isBinary) => {
    if (!isBinary) {
      const msg = JSON.parse(data.toString());
      if (msg.type === 'Finalize') finalize(false, true);
      if (msg.type === 'CloseStream') {
        finalize(true, false);
        send(metadata(receivedMs / 1000));
        sock.ws.close(1000);
      }
      return;
    }
    const buf = data as Buffer;
    const samples = buf.length >> 1;
    let energy = 0;
    for (let i = 0; i + 1 < buf.length; i += 2) energy += Math.abs(buf.readInt16LE(i));
    const loud = samples > 0 && energy / samples > 500;
    const ms = (samples * 1000) / rate;
    receivedMs += ms;
    if (loud) {
      if (!speaking) {
        speaking = true;
        heard = nextTranscript();
        send(results(heard.split(' ')[0], { isFinal: false, start: receivedMs / 1000 }));
      }
      quietMs = 0;
      sinceFinalMs = -1;
    } else if (speaking) {
      quietMs += ms;
      if (quietMs >= endpointingMs) finalize(true, false);
    } else if (sinceFinalMs >= 0) {
      sinceFinalMs += ms;
      if (sinceFinalMs >= utteranceEndMs) {
        send(utteranceEnd(receivedMs / 1000 - sinceFinalMs / 1000));
        sinceFinalMs = -1;
      }
    }
  });
}

export { sleep };
