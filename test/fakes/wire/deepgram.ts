import type { ServerResponse } from 'node:http';
import { jsonResponse } from './server.js';

// Deepgram as documented: REST errors {"err_code","err_msg","request_id"}; /v1/speak answers
// audio bytes (linear16 in a WAV container unless container=none); /v1/listen live messages:
// Results (is_final, speech_final, channel.alternatives[].transcript), UtteranceEnd,
// SpeechStarted, Metadata (sent when the stream closes).

export function deepgramError(res: ServerResponse, status: number, errCode: string, errMsg: string, headers: Record<string, string> = {}): void {
  jsonResponse(res, status, { err_code: errCode, err_msg: errMsg, request_id: '5d7ac4b6-0000-4000-8000-000000000000' }, headers);
}

export const deepgramErrorBody = (errCode: string, errMsg: string) => ({ err_code: errCode, err_msg: errMsg, request_id: '5d7ac4b6-0000-4000-8000-000000000000' });

export function results(transcript: string, opts: { isFinal: boolean; speechFinal?: boolean; start?: number; duration?: number; fromFinalize?: boolean }): Record<string, unknown> {
  const words = transcript
    ? transcript.split(' ').map((w, i) => ({ word: w.toLowerCase().replace(/[^a-z']/g, ''), start: (opts.start ?? 0) + i * 0.3, end: (opts.start ?? 0) + i * 0.3 + 0.25, confidence: 0.98, punctuated_word: w }))
    : [];
  return {
    type: 'Results',
    channel_index: [0, 1],
    duration: opts.duration ?? 1.0,
    start: opts.start ?? 0,
    is_final: opts.isFinal,
    speech_final: opts.speechFinal ?? false,
    from_finalize: opts.fromFinalize ?? false,
    channel: { alternatives: [{ transcript, confidence: transcript ? 0.98 : 0, words }] },
    metadata: {
      request_id: '5d7ac4b6-0000-4000-8000-000000000000',
      model_info: { name: '2-general-nova', version: '2024-01-18.26916', arch: 'nova-3' },
      model_uuid: '1dbdfb4d-85b2-4659-c376-eb5a5e5c5f5e',
    },
  };
}

export const utteranceEnd = (lastWordEnd: number) => ({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: lastWordEnd });
export const speechStarted = (timestamp: number) => ({ type: 'SpeechStarted', channel: [0], timestamp });
export const metadata = (durationS: number) => ({
  type: 'Metadata',
  transaction_key: 'deprecated',
  request_id: '5d7ac4b6-0000-4000-8000-000000000000',
  sha256: '0'.repeat(64),
  created: '2026-11-21T17:00:00.000Z',
  duration: durationS,
  channels: 1,
  models: ['1dbdfb4d-85b2-4659-c376-eb5a5e5c5f5e'],
  model_info: {},
});
