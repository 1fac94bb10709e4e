// A whole evaluation call through the barge-in detector alone, in simulated time: one
// MediaChannel for the call, the agent's greeting, answers and reminders in the order the live
// script produces them, and the caller's own speech after each cut-in (the turn the agent then
// answers), so what the detector learned from the call so far, the caller included, is there
// when the next cut-in comes. detector-sweep.ts `run` starts every cut-in on a fresh channel or
// after answers with the caller silent, which is not what a live call looks like.
import { DEFAULT_INTERRUPTION, nativeBargeIn } from '../../src/conversation/interruption.js';
import { ChannelEvents, MediaChannel, Resampler } from '../../src/audio/native.js';
import { EchoPath, NoiseSource, noiseLoop, type EchoSpec, type NoiseKind, type Utterance } from './eval-audio.js';
import { FLOOR_DBFS, MATERIAL, NOISE_DBFS, type Half } from './eval-set.js';
import { MULAW_DECODE, mulawEncode } from '../media/mulaw.js';

const FRAME_MS = 20;
const LEAD_FRAMES = 3; // the pacer's 60 ms lead: a frame is pushed as reference 60 ms before it plays
const AGENT_RATE = 16000;
const TURN_GAP_FRAMES = 35; // caller's speech end -> the answer's first frame (live p50 ~640 ms)
const IDLE_FRAMES = 100; // idle_warn_seconds: 2 in the evaluation's agents

export interface SimLine { noise?: NoiseKind; echo?: EchoSpec }
/** A step of the live script with its audio at the line rate. */
export type SimStep = { do: 'barge'; offsetMs: number; u: Utterance } | { do: 'listen' } | { do: 'pause'; quietMs: number; u: Utterance };
export interface SimAgent { greeting: Int16Array; answers: Int16Array[]; reminder: Int16Array }
export interface CutIn { step: number; onsetMs: number; kind: 'greeting' | 'answer' | 'reminder'; latencyMs: number | null; falseBefore: number }

function frames(pcm: Int16Array, n: number): Int16Array[] {
  const out: Int16Array[] = [];
  for (let i = 0; i + n <= pcm.length; i += n) out.push(pcm.subarray(i, i + n));
  return out;
}

export function simulateCall(rateHz: number, line: SimLine, agent: SimAgent, steps: SimStep[], seed: number, loops: Map<string, Float32Array>, half: Half): { cutIns: CutIn[]; falseListening: number } {
  const carrier = rateHz === 8000;
  const ch = new MediaChannel({ inRateHz: rateHz, procRateHz: rateHz, refRateHz: carrier ? rateHz : AGENT_RATE, frameMs: 20, maxMessageBytes: 4096, bargeIn: nativeBargeIn(DEFAULT_INTERRUPTION) });
  const n = (rateHz * FRAME_MS) / 1000;
  const agentN = (AGENT_RATE * FRAME_MS) / 1000;
  const down = new Resampler({ inRateHz: AGENT_RATE, outRateHz: rateHz, maxInputSamples: agentN });
  const refDown = new Resampler({ inRateHz: AGENT_RATE, outRateHz: rateHz, maxInputSamples: agentN });
  const law = new Uint8Array(n);
  const mulaw = (pcm: Int16Array) => {
    mulawEncode(pcm, law);
    for (let i = 0; i < n; i++) pcm[i] = MULAW_DECODE[law[i]];
    return pcm;
  };
  const key = `${line.noise}/${rateHz}`;
  if (line.noise && !loops.has(key)) loops.set(key, noiseLoop(line.noise, rateHz * 20, rateHz, 7, MATERIAL[half].babble));
  const wkey = `floor/${rateHz}`; // not the white line's loop: the floor has its own
  if (!loops.has(wkey)) loops.set(wkey, noiseLoop('white', rateHz * 20, rateHz, 3));
  const noise = line.noise ? new NoiseSource(loops.get(key)!, NOISE_DBFS, seed) : null;
  const floor = new NoiseSource(loops.get(wkey)!, FLOOR_DBFS, seed + 1);
  const echo = line.echo ? new EchoPath(line.echo, rateHz, seed) : null;
  const silence = new Int16Array(agentN);

  // The call's state, advanced one frame per tick.
  const pushed: (Int16Array | null)[] = []; // agent frame pushed as reference at each frame
  let utt: Int16Array[] | null = null;
  let uttPos = 0;
  let cutAt = Infinity; // frames pushed from here on are not played (the agent was cut)
  let lastPushed = -1;
  let said: { from: number; pcm: Int16Array } | null = null;
  let f = 0;
  const tick = (): boolean => {
    const ref = utt && uttPos < utt.length ? utt[uttPos++] : null;
    if (utt && uttPos >= utt.length) utt = null;
    pushed.push(ref);
    if (ref) {
      lastPushed = f;
      ch.pushReference(carrier ? (refDown.process(ref), Int16Array.from(refDown.output.subarray(0, n), (v) => Math.round(v))) : ref);
    }
    const p = f - LEAD_FRAMES;
    const playedAgent = p >= 0 && p < cutAt ? pushed[p] : null;
    let played = down.process(playedAgent ?? silence) ? down.output.slice(0, n) : new Float32Array(n);
    if (carrier) played = Float32Array.from(mulaw(Int16Array.from(played, (v) => Math.round(v))));
    const mic = new Float32Array(n);
    floor.addTo(mic);
    noise?.addTo(mic);
    echo?.process(played, mic);
    if (said) {
      const k = (f - said.from) * n;
      if (k >= 0) for (let i = 0; i < n && k + i < said.pcm.length; i++) mic[i] += said.pcm[k + i];
      if (k + n >= said.pcm.length) said = null;
    }
    const pcm = Int16Array.from(mic, (v) => Math.max(-32768, Math.min(32767, Math.round(v))));
    if (carrier) mulaw(pcm);
    ch.process(new Uint8Array(pcm.buffer));
    f++;
    return (ch.events & ChannelEvents.interruption) !== 0;
  };
  const agentPlaying = () => utt !== null || f <= lastPushed + LEAD_FRAMES;
  const start = (pcm: Int16Array) => {
    utt = frames(pcm, agentN);
    uttPos = 0;
    cutAt = Infinity;
  };

  let answer = 0;
  let next: CutIn['kind'] = 'greeting';
  const nextUtterance = () => (next === 'greeting' ? agent.greeting : next === 'reminder' ? agent.reminder : agent.answers[answer++ % agent.answers.length]);
  const cutIns: CutIn[] = [];
  let falseListening = 0;
  for (let i = 0; i < 50; i++) tick();
  for (const [s, step] of steps.entries()) {
    if (step.do === 'barge') {
      const from = f + Math.round(step.offsetMs / FRAME_MS) + LEAD_FRAMES;
      const onset = from + step.u.onsetFrame;
      const kind = next;
      start(nextUtterance());
      let hit = -1;
      let falseBefore = 0;
      while (agentPlaying() || said || f < from) {
        if (f === from) said = { from, pcm: step.u.pcm };
        if (tick()) {
          const at = f - 1;
          if (at < from) falseBefore++;
          else if (hit < 0 && agentPlaying()) {
            hit = at;
            utt = null; // the agent stops: nothing more pushed, nothing more played
            cutAt = at;
          }
        }
      }
      cutIns.push({ step: s, onsetMs: onset * FRAME_MS, kind, latencyMs: hit < 0 ? null : (hit - onset) * FRAME_MS + FRAME_MS, falseBefore });
      for (let i = 0; i < TURN_GAP_FRAMES; i++) tick();
      next = 'answer';
    } else if (step.do === 'listen') {
      start(nextUtterance());
      while (agentPlaying()) if (tick()) falseListening++;
      // The caller stays quiet: the reminder comes after the idle time, unless the caller speaks first.
      if (steps[s + 1]?.do !== 'pause') {
        for (let i = 0; i < IDLE_FRAMES; i++) if (tick()) falseListening++;
        next = 'reminder';
      }
    } else {
      for (let i = 0; i < step.quietMs / FRAME_MS; i++) tick();
      said = { from: f, pcm: step.u.pcm };
      while (said) tick();
      for (let i = 0; i < TURN_GAP_FRAMES; i++) tick();
      next = 'answer';
    }
  }
  return { cutIns, falseListening };
}
