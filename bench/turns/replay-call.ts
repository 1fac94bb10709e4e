// npx tsx bench/turns/replay-call.ts <call id> — one evaluation call's cut-ins through the barge-in
// detector alone (detector-sweep.ts `run`: simulated time, no sockets), with the call's own
// voice, level, texts, offsets, line and seed (`bench/results/turns.json` names the set). Each
// cut-in comes into a fresh call or, with LATE=1, into the fourth answer of one. It tells a
// detector miss from what the machine or the engine added in the live run.
import { readFileSync } from 'node:fs';
import { evalSet, MATERIAL } from './eval-set.js';
import { synth, utterance } from './eval-audio.js';
import { run } from './detector-sweep.js';

const id = process.argv[2] ?? 'heldout/carrier/trials/15';
const { eval: ev } = JSON.parse(readFileSync(new URL('../results/turns.json', import.meta.url), 'utf8'));
const call = evalSet(ev.seed, ev.sizes).find((c) => c.id === id);
if (!call) throw new Error(`no call ${id} in the set`);
const rate = call.path === 'web' ? 16000 : 8000;
const m = MATERIAL[call.half];
const answers = m.medium.map((t) => synth(t, m.agentVoice, 16000));
const line = call.line.kind === 'noise' ? { name: call.line.noise, noise: call.line.noise } : call.line.kind === 'echo' ? { name: 'echo', echo: call.line.echo } : { name: 'clean' };
const late = process.env.LATE === '1';
const loops = new Map<string, Float32Array>();
console.log(call.id, JSON.stringify(call.caller), JSON.stringify(call.line), late ? 'late' : 'fresh');
let i = 0;
for (const step of call.steps) {
  if (step.do !== 'barge') continue;
  const u = utterance([step.text.text], call.caller.voice, rate, call.caller.pitch, call.caller.speed, call.caller.levelDbfs);
  const agent = late ? answers.slice(0, 3).concat(answers[i % answers.length]) : [answers[i % answers.length]];
  const gaps = late ? [1200, 1200, 1200, 1000] : 1000;
  const res = run(rate, line, agent, gaps, { atMs: step.offsetMs, pcm: u.pcm, answer: agent.length - 1 }, call.seed + i, loops, call.half);
  const onset = res.callerFrom + u.onsetFrame;
  const hit = res.events.find((f) => f >= res.callerFrom);
  const before = res.events.filter((f) => f < res.callerFrom).length;
  console.log(`${i} ${JSON.stringify(step.text.text)} +${step.offsetMs} ms: ${hit === undefined ? 'missed' : `${(hit - onset) * 20 + 20} ms`}${before ? `, ${before} false before` : ''}`);
  i++;
}
