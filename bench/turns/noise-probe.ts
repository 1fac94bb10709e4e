// npx tsx bench/turns/noise-probe.ts [tuning|heldout] — false interruptions over long street and
// music lines with the caller silent: the barge-in detector alone in simulated time (SimLine, as
// detector-sweep.ts), 2 min of agent answers on each of 4 one-minute noise loops per rate, and
// which street interruptions came within 0.7 s after a horn. Then fresh calls whose line carries
// the noise from the stream's first frame, the agent's greeting after 0 or 500 ms of the line alone:
// how many greetings the noise interrupts; and callers 6 dB over that line cutting into such a
// greeting 1.5-3.5 s in (what learning the line during the greeting would cost). PROBE_KINDS=street,music;
// PROBE_FRESH (calls per kind and rate, 60); PROBE_VERBOSE=1 lists each interruption with its
// place in the loop.
import { activeLevel, noiseLoop, rng, street, synth, type NoiseKind } from './eval-audio.js';
import { MATERIAL, NOISE_DBFS, type Half } from './eval-set.js';
import { AGENT_RATE, FRAME_MS, SimLine } from './sim-line.js';

const LOOPS = 4;
const LOOP_S = 60;
const SPEECH_MS = 120_000;
const HORN_WINDOW_S = 0.7; // the 100 ms of evidence, the answer gap re-arm and the horn's length
const LEAD_FRAMES = 3; // the pacer's 60 ms lead

const half = (process.argv[2] ?? 'tuning') as Half;
const kinds = (process.env.PROBE_KINDS ?? 'street,music').split(',') as NoiseKind[];
const verbose = process.env.PROBE_VERBOSE === '1';
const FRESH = Number(process.env.PROBE_FRESH ?? 60);
const m = MATERIAL[half];
const answers = m.medium.map((t) => synth(t, m.agentVoice, AGENT_RATE));
const agentN = (AGENT_RATE * FRAME_MS) / 1000;

/** The agent's frames: answers in turn, 1.2 s apart, about SPEECH_MS of speech. */
function agentFrames(first: number): (Int16Array | null)[] {
  const frames: (Int16Array | null)[] = new Array(50).fill(null);
  for (let i = first, ms = 0; ms < SPEECH_MS; i++) {
    const a = answers[i % answers.length];
    for (let k = 0; k + agentN <= a.length; k += agentN) frames.push(a.subarray(k, k + agentN));
    for (let k = 0; k < 1200 / FRAME_MS; k++) frames.push(null);
    ms += (a.length / AGENT_RATE) * 1000;
  }
  return frames;
}

/** The loop of a noise kind for loop number s (and a street loop's horns). */
function probeLoop(kind: NoiseKind, rateHz: number, s: number, hornSpans?: [number, number][]): Float32Array {
  const loopSeed = 500 + 17 * s + (half === 'heldout' ? 1000 : 0);
  const len = rateHz * LOOP_S;
  return kind === 'street' ? street(len, rateHz, loopSeed, hornSpans) : noiseLoop(kind, len, rateHz, loopSeed, m.babble);
}

for (const kind of kinds) {
  for (const rateHz of [16000, 8000]) {
    let raised = 0;
    let nearHorn = 0;
    let horns = 0;
    let speechMs = 0;
    for (let s = 0; s < LOOPS; s++) {
      const len = rateHz * LOOP_S;
      const hornSpans: [number, number][] = [];
      const loop = probeLoop(kind, rateHz, s, hornSpans);
      horns += hornSpans.length;
      const sim = new SimLine(rateHz, { noise: kind }, 1234 + s, new Map([[`${kind}/${rateHz}`, loop]]), half, `white/${rateHz}`);
      const start = Math.floor(rng(1234 + s)() * len); // where SimLine's noise source starts in the loop
      const frames = agentFrames(s);
      speechMs += frames.filter((f) => f).length * FRAME_MS;
      for (let f = 0; f < frames.length; f++) {
        if (frames[f]) sim.pushReference(frames[f]!);
        if (!sim.frame(f >= LEAD_FRAMES ? frames[f - LEAD_FRAMES] : null)) continue;
        raised++;
        const at = (start + (f + 1) * sim.n) % len;
        const horn = hornSpans.some(([a, b]) => [0, len].some((wrap) => a - wrap <= at && b - wrap >= at - HORN_WINDOW_S * rateHz));
        if (horn) nearHorn++;
        if (verbose) console.log(`  ${kind} ${rateHz / 1000} kHz loop ${s} at ${(at / rateHz).toFixed(2)} s${horn ? ' (horn)' : ''}`);
      }
    }
    const hornNote = kind === 'street' ? ` (${nearHorn} within ${HORN_WINDOW_S} s after a horn; ${horns} horns in the loops, each played about twice)` : '';
    console.log(`${half} ${kind} ${rateHz / 1000} kHz: ${raised} false interruptions in ${(speechMs / 60_000).toFixed(1)} min of agent speech${hornNote}`);
  }
}

// Fresh calls: the noise from the first frame and the greeting after a lead of the line alone:
// none (the line's loud moments, learned only while the agent is silent, are not known yet) or
// 500 ms (a greeting that waits for its first TTS audio).
for (const leadMs of [0, 500]) {
  for (const kind of kinds) {
    for (const rateHz of [16000, 8000]) {
      const loops = Array.from({ length: LOOPS }, (_, s) => probeLoop(kind, rateHz, s));
      let cut = 0;
      for (let c = 0; c < FRESH; c++) {
        const seed = 7000 + c + (half === 'heldout' ? 1000 : 0);
        const sim = new SimLine(rateHz, { noise: kind }, seed, new Map([[`${kind}/${rateHz}`, loops[c % LOOPS]]]), half, `white/${rateHz}`);
        const a = answers[c % answers.length];
        const frames: (Int16Array | null)[] = new Array(leadMs / FRAME_MS).fill(null);
        for (let k = 0; k + agentN <= a.length; k += agentN) frames.push(a.subarray(k, k + agentN));
        for (let f = 0; f < frames.length + LEAD_FRAMES; f++) {
          if (frames[f]) sim.pushReference(frames[f]!);
          const played = f >= LEAD_FRAMES ? frames[f - LEAD_FRAMES] : null;
          // An interruption counts while the loudspeaker plays the greeting (before, nothing to cut).
          if (!sim.frame(played) || !played) continue;
          cut++;
          if (verbose) console.log(`  fresh ${kind} ${rateHz / 1000} kHz lead ${leadMs} ms call ${c}: interrupted at ${(f + 1) * FRAME_MS} ms`);
          break;
        }
      }
      console.log(`${half} ${kind} ${rateHz / 1000} kHz, ${FRESH} fresh calls, the greeting after ${leadMs} ms of the line alone: ${cut} greetings interrupted`);
    }
  }
}

// Callers on such lines: 6 dB over the line (active speech level, -24 dBFS: the quiet end of the
// evaluation set's 5-15 dB over its noise), cutting into the greeting 1.5, 2.5 or 3.5 s in;
// onset (first sample over 1% of full scale) -> interruption, a miss after 3 s; a call whose
// greeting the noise interrupted before the caller spoke is counted apart (pre-empted).
for (const kind of kinds) {
  for (const rateHz of [16000, 8000]) {
    const loops = Array.from({ length: LOOPS }, (_, s) => probeLoop(kind, rateHz, s));
    const latencies: number[] = [];
    let preEmptedCalls = 0;
    for (let c = 0; c < FRESH; c++) {
      const seed = 7000 + c + (half === 'heldout' ? 1000 : 0);
      const sim = new SimLine(rateHz, { noise: kind }, seed, new Map([[`${kind}/${rateHz}`, loops[c % LOOPS]]]), half, `white/${rateHz}`);
      const a = answers[c % answers.length];
      const frames: Int16Array[] = [];
      for (let k = 0; k + agentN <= a.length; k += agentN) frames.push(a.subarray(k, k + agentN));
      const line = m.barge[c % m.barge.length];
      const voice = `${m.languages[c % m.languages.length]}+${m.variants[c % m.variants.length]}`;
      const pcm = Float32Array.from(synth(line.text, voice, rateHz));
      const gain = 10 ** ((NOISE_DBFS + 6 - activeLevel(pcm, rateHz)) / 20);
      let first = 0;
      while (first < pcm.length && Math.abs(gain * pcm[first]) < 328) first++;
      const onset = Math.round(((1500 + 1000 * (c % 3)) * rateHz) / 1000);
      let hit = Infinity;
      let preEmpted = false; // the noise interrupted the greeting before the caller spoke
      for (let f = 0; f * sim.n < onset + 3 * rateHz; f++) {
        if (f < frames.length) sim.pushReference(frames[f]);
        const played = f >= LEAD_FRAMES && f - LEAD_FRAMES < frames.length ? frames[f - LEAD_FRAMES] : null;
        const from = f * sim.n;
        const fired = sim.frame(played, (mic) => {
          for (let i = 0; i < mic.length; i++) {
            const j = from + i - onset + first;
            if (j >= first && j < pcm.length) mic[i] += gain * pcm[j];
          }
        });
        if (fired && (f + 1) * sim.n <= onset) preEmpted = true;
        if (fired && (f + 1) * sim.n > onset) {
          hit = (((f + 1) * sim.n - onset) / rateHz) * 1000;
          break;
        }
      }
      if (preEmpted) preEmptedCalls++;
      else latencies.push(hit);
    }
    const sorted = latencies.filter(Number.isFinite).sort((x, y) => x - y);
    const q = (p: number) => (sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]) : NaN);
    const over = (ms: number) => latencies.filter((x) => x > ms).length;
    console.log(
      `${half} ${kind} ${rateHz / 1000} kHz, ${FRESH} callers 6 dB over the line cutting into a greeting that opened with it: ` +
        `${latencies.length} cut-ins p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, max ${sorted.length ? Math.round(sorted.at(-1)!) : NaN} ms, over 150 ms ${over(150)}, over 400 ms ${over(400)}, missed ${latencies.length - sorted.length}; ` +
        `${preEmptedCalls} pre-empted (the noise interrupted the greeting first)`,
    );
  }
}
