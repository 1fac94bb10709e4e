// The caller's side of an agent call in bench:media `--agent`: the bench:turns prompts spoken by
// espeak-ng at 16 kHz, each followed by 3 s of silence (the agent answers in it), written as raw
// PCM16 for the C load client (BENCH_CLIENT_SPEECH), a whole number of 20 ms frames.
import { writeFileSync } from 'node:fs';
import { speak } from '../../test/native/corpus.js';
import { PROMPTS, RATE_IN_HZ } from '../turns/scenarios.js';

const FRAME = (RATE_IN_HZ * 20) / 1000;
const GAP_S = 3;

export function callerSpeechFile(path: string): string {
  const parts: Int16Array[] = [];
  for (const [text, voice] of PROMPTS) {
    parts.push(speak(text, voice, RATE_IN_HZ), new Int16Array(GAP_S * RATE_IN_HZ));
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const pcm = new Int16Array(Math.ceil(total / FRAME) * FRAME);
  let at = 0;
  for (const p of parts) {
    pcm.set(p, at);
    at += p.length;
  }
  writeFileSync(path, Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
  return path;
}
