// A whole evaluation call through the barge-in detector alone, in simulated time: one
// MediaChannel for the call, the agent's greeting, answers and reminders in the order the live
// script produces them, and the caller's own speech after each cut-in (the turn the agent then
// answers), so what the detector learned from the call so far, the caller included, is there
// when the next cut-in comes. detector-sweep.ts `run` starts every cut-in on a fresh channel or
// after answers with the caller silent, which is not what a live call looks like.
import type { Utterance } from './eval-audio.js';
import type { Half } from './eval-set.js';
import { AGENT_RATE, FRAME_MS, SimLine, type LineSpec } from './sim-line.js';

const LEAD_FRAMES = 3; // the pacer's 60 ms lead: a frame is pushed as reference 60 ms before it plays
const TURN_GAP_FRAMES = 35; // caller's speech end -> the answer's first frame (live p50 ~640 ms)
const IDLE_FRAMES = 100; // idle_warn_seconds: 2 in the evaluation's agents

/** A step of the live script with its audio at the line rate. */
export type SimStep = { do: 'barge'; offsetMs: number; u: Utterance } | { do: 'listen' } | { do: 'pause'; quietMs: number; u: Utterance };
export interface SimAgent { greeting: Int16Array; answers: Int16Array[]; reminder: Int16Array }
export interface CutIn { step: number; onsetMs: number; kind: 'greeting' | 'answer' | 'reminder'; latencyMs: number | null; falseBefore: number }

function frames(pcm: Int16Array, n: number): Int16Array[] {
  const out: Int16Array[] = [];
  for (let i = 0; i + n <= pcm.length; i += n) out.push(pcm.subarray(i, i + n));
  return out;
}

export function simulateCall(rateHz: number, line: LineSpec, agent: SimAgent, steps: SimStep[], seed: number, loops: Map<string, Float32Array>, half: Half): { cutIns: CutIn[]; falseListening: number } {
  const sim = new SimLine(rateHz, line, seed, loops, half);
  const n = sim.n;
  const agentN = (AGENT_RATE * FRAME_MS) / 1000;

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
      sim.pushReference(ref);
    }
    const p = f - LEAD_FRAMES;
    const speaking = said;
    const raised = sim.frame(p >= 0 && p < cutAt ? pushed[p] : null, speaking ? (mic) => {
      const k = (f - speaking.from) * n;
      if (k >= 0) for (let i = 0; i < n && k + i < speaking.pcm.length; i++) mic[i] += speaking.pcm[k + i];
      if (k + n >= speaking.pcm.length) said = null;
    } : undefined);
    f++;
    return raised;
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
