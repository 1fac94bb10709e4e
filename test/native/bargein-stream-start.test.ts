// The caller scorer's first 200 ms learn the line fast (a stream may open on a filter's warm-up or
// on silence), but not from a hop that looks like speech while the agent's audio plays, unless
// every band rose alike (SpeechScorer::AgentPlaying and FlatRise; kAgentPlayingPower in
// bargein_tuning.h). A caller who speaks as the greeting starts was learned as the line within
// 100 ms and held under it.
import t from 'tap';
import { interruptionsAt } from './barge-in-run.js';
import { agentTrack, loudPower, noise, speak, toInt16 } from './corpus.js';

const CUTS = ['Wait, stop, I have another question.', 'No, I meant the other order.', 'Sorry to cut in, but that is wrong.', 'Excuse me, I did not catch that.'];
const VOICES = ['en-us+m3', 'en-gb+f3', 'en-us+f4', 'en-gb-x-rp+m1'];
const LINE_DBFS = -30;
const CALLER_DBFS = -18;
const CALLER_AT_MS = 40;
const CALL_MS = 3000;
const bargeIn = { minDurationMs: 100, maxEchoDelayMs: 600 };

const dbfs = (db: number) => 32768 * 10 ** (db / 20);
const samples = (ms: number, rateHz: number) => Math.round((ms * rateHz) / 1000);

/** The greeting, from the stream's first sample or after `silentMs`, as long as the call. */
function greeting(rateHz: number, silentMs = 0): Int16Array {
  const agent = agentTrack(rateHz);
  const from = samples(agent.onsetsMs[0], rateHz);
  const out = new Float32Array(samples(CALL_MS, rateHz));
  out.set(agent.pcm.subarray(from, from + out.length - samples(silentMs, rateHz)), samples(silentMs, rateHz));
  return toInt16(out);
}

/** Each caller's latency from their first audible sample (Infinity: missed), and interruptions before it. */
function earlyCallers(rateHz: number, kind: 'white' | 'pink'): { ms: number; before: number }[] {
  const line = noise(kind, samples(CALL_MS, rateHz), rateHz, 11);
  const ref = greeting(rateHz);
  const out: { ms: number; before: number }[] = [];
  for (const voice of VOICES) {
    for (const text of CUTS) {
      const cut = speak(text, voice, rateHz);
      const gain = dbfs(CALLER_DBFS) / Math.sqrt(loudPower(Float32Array.from(cut), rateHz));
      let lead = 0;
      while (Math.abs(gain * cut[lead]) < 100) lead++;
      const at = samples(CALLER_AT_MS, rateHz);
      const mic = toInt16(line.map((v, i) => {
        const j = i - at + lead;
        return dbfs(LINE_DBFS) * v + (j >= 0 && j < cut.length ? gain * cut[j] : 0);
      }));
      const fires = interruptionsAt(mic, ref, { micRateHz: rateHz, bargeIn });
      out.push({ before: fires.filter((x) => x < CALLER_AT_MS).length, ms: fires.map((x) => x - CALLER_AT_MS).find((d) => d >= 0) ?? Infinity });
    }
  }
  return out;
}

/** Interruptions over a line that steps up to -30 dBFS `stepMs` into the stream, the caller silent. */
function overStep(rateHz: number, kind: 'white' | 'pink' | 'brown', stepMs: number, fromDbfs: number, ref: Int16Array): number {
  const line = noise(kind, samples(CALL_MS, rateHz), rateHz, 21);
  const step = samples(stepMs, rateHz);
  const mic = toInt16(line.map((v, i) => v * dbfs(i < step ? fromDbfs : LINE_DBFS)));
  return interruptionsAt(mic, ref, { micRateHz: rateHz, bargeIn }).length;
}

// Over -30 dBFS noise, 16 callers at -18 dBFS 40 ms into the greeting. Learned as the line, at
// 16 kHz none was heard within 150 ms (white: 180-1,200 ms; pink: 180-1,200); now 9 and 8 (the
// slowest 320 and 600 ms). At 8 kHz the warm-up held them less (4 and 4 within 150 ms, the
// slowest 360): now 6 and 4, the slowest 360.
for (const [rateHz, kind, within, slowest] of [[16000, 'white', 9, 350], [16000, 'pink', 8, 650], [8000, 'white', 6, 400], [8000, 'pink', 4, 400]] as const) {
  t.test(`${rateHz / 1000} kHz, ${kind} noise: a caller who speaks as the greeting starts is heard`, async (t) => {
    const runs = earlyCallers(rateHz, kind);
    t.equal(runs.reduce((s, r) => s + r.before, 0), 0, 'nothing before the caller');
    const ms = runs.map((r) => Math.round(r.ms));
    t.ok(ms.every((m) => m <= slowest), `every caller heard within ${slowest} ms: ${ms.join(' ')}`);
    t.ok(ms.filter((m) => m <= 150).length >= within, `at least ${within} of 16 within 150 ms: ${ms.join(' ')}`);
  });
}

for (const rateHz of [16000, 8000]) {
  // Only while the agent plays: before the greeting a line that gets louder in its first 100 ms is
  // learned as before (held off without the agent's audio too, each of these 18 lines cut the
  // greeting that started 500 ms in).
  t.test(`${rateHz / 1000} kHz: a line that gets louder before the greeting is learned as the line`, async (t) => {
    const ref = greeting(rateHz, 500);
    const cut: string[] = [];
    for (const kind of ['white', 'pink', 'brown'] as const) {
      for (const stepMs of [30, 60, 100]) {
        for (const from of [-50, -42]) if (overStep(rateHz, kind, stepMs, from, ref) > 0) cut.push(`${kind} ${stepMs} ms from ${from} dBFS`);
      }
    }
    t.same(cut, [], 'no greeting cut by the line alone');
  });
}

// While the greeting plays, a noise that steps up 12-20 dB 30 or 60 ms into the stream rose alike
// in every band and is learned as the line (held off, each of these 8 cut the greeting at 16 kHz).
// Not covered: steps at 100 ms (the warm-up's end) cut it with or without this rule, and at 8 kHz
// every step here cut the greeting before this change too.
t.test('16 kHz: a line that gets louder as the greeting starts is learned as the line', async (t) => {
  const ref = greeting(16000);
  const cut: string[] = [];
  for (const kind of ['white', 'pink'] as const) {
    for (const stepMs of [30, 60]) {
      for (const from of [-50, -42]) if (overStep(16000, kind, stepMs, from, ref) > 0) cut.push(`${kind} ${stepMs} ms from ${from} dBFS`);
    }
  }
  t.same(cut, [], 'no greeting cut by the line alone');
});
