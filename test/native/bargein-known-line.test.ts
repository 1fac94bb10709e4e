// Once the line has been heard alone for a second, a caller needs 85% of minDurationMs
// (kKnownLineHops in bargein_tuning.h): the false interruptions that hold the duration at 100 ms
// come before the line's levels are known (music and street at a call's start) or from echo.
// Here the same callers, 12 dB over white noise at -40 dBFS and no echo, cut into the agent's first
// phrase 1.2 s in; the agent started after 1.2 s of the line alone (known) or 0.8 s (not yet).
// Round 32's build gave the two the same latency for 15 of the 16 callers; now most are 20 ms
// faster on the known line, and none is slower.
import t from 'tap';
import { engineInterruptionsAt } from './barge-in-run.js';
import { agentTrack, loudPower, noise, speak, toInt16 } from './corpus.js';

const TEXTS = ['Wait, stop, I have another question.', 'No, I meant the other order.', 'Sorry to cut in, but that is wrong.', 'Excuse me, I did not catch that.'];
const VOICES = ['en-us+m3', 'en-gb+f3'];
const NOISE_RMS = 32768 * 10 ** (-40 / 20);
const SNR_DB = 12;
const CUT_IN_MS = 1200;

for (const rateHz of [16000, 8000]) {
  const track = agentTrack(rateHz);
  const agent = track.pcm.subarray(Math.round(((track.onsetsMs[0] - 20) * rateHz) / 1000));
  const s = (ms: number) => Math.round((ms * rateHz) / 1000);

  /** The interruptions before the caller, and the cut-in's latency from the caller's first audible sample. */
  const cutIn = (aloneMs: number, text: string, voice: string) => {
    const callerAt = s(aloneMs + CUT_IN_MS);
    const n = callerAt + 2 * rateHz;
    const ref = new Float32Array(n);
    ref.set(agent.subarray(0, n - s(aloneMs)), s(aloneMs));
    const line = noise('white', n, rateHz, 21);
    const speech = Float32Array.from(speak(text, voice, rateHz));
    const g = Math.sqrt((NOISE_RMS ** 2 * 10 ** (SNR_DB / 10)) / loudPower(speech, rateHz));
    let first = 0;
    while (Math.abs(g * speech[first]) < 300) first++;
    const mic = Float32Array.from(line, (v, i) => {
      const j = i - callerAt + first;
      return NOISE_RMS * v + (j >= 0 && j < speech.length ? g * speech[j] : 0);
    });
    const at = engineInterruptionsAt(rateHz, toInt16(mic), toInt16(ref));
    const t0 = (callerAt / rateHz) * 1000;
    return { before: at.filter((x) => x < t0 - 20).length, ms: (at.find((x) => x >= t0 - 20) ?? Infinity) - t0 };
  };

  t.test(`${rateHz / 1000} kHz: a caller is heard sooner on a line heard alone for a second`, async (t) => {
    let faster = 0;
    for (const text of TEXTS) {
      for (const voice of VOICES) {
        const known = cutIn(1200, text, voice);
        const fresh = cutIn(800, text, voice);
        t.equal(known.before + fresh.before, 0, `${voice} "${text}": the line alone raises nothing`);
        t.ok(Number.isFinite(known.ms) && known.ms <= fresh.ms, `${voice} "${text}": ${Math.round(known.ms)} ms on the known line, ${Math.round(fresh.ms)} ms after 0.8 s`);
        if (known.ms < fresh.ms) faster++;
      }
    }
    t.ok(faster >= 4, `${faster} of ${TEXTS.length * VOICES.length} callers faster on the known line`);
  });
}
