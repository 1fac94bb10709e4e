// A caller cutting into the agent on a noisy line without echo (the agent is heard only through
// the reference), as the barge-in tests over steady noise build it: the caller's speech scaled to
// `snrDb` over the noise by its loud frames, starting `cutIntoMs` into one of the agent's phrases.
import { interruptionsAt } from './barge-in-run.js';
import { loudPower, speak, toInt16 } from './corpus.js';

export interface NoisyCutIn {
  rateHz: number;
  agent: { pcm: Float32Array; onsetsMs: number[] };
  ref: Int16Array;
  /** Unit-RMS noise as long as the agent track, played at noiseRms. */
  line: Float32Array;
  noiseRms: number;
  snrDb: number;
  voice: string;
  text: string;
  phrase: number;
  cutIntoMs: number;
}

/** Interruptions relative to the caller's first audible sample (ms; negative: before it). */
export function noisyCutIn(c: NoisyCutIn): number[] {
  const speech = Float32Array.from(speak(c.text, c.voice, c.rateHz));
  const g = Math.sqrt((c.noiseRms ** 2 * 10 ** (c.snrDb / 10)) / loudPower(speech, c.rateHz));
  let first = 0;
  while (Math.abs(g * speech[first]) < 300) first++;
  const at = Math.round(((c.agent.onsetsMs[c.phrase] + c.cutIntoMs) * c.rateHz) / 1000);
  const mic = toInt16(Float32Array.from(c.line, (n, i) => {
    const j = i - at + first;
    return c.noiseRms * n + (j >= 0 && j < speech.length ? g * speech[j] : 0);
  }));
  const atMs = (at / c.rateHz) * 1000;
  return interruptionsAt(mic, c.ref, { micRateHz: c.rateHz, bargeIn: { minDurationMs: 100, maxEchoDelayMs: 600 } }).map((x) => x - atMs);
}
