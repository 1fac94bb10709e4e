// npx tsx bench/turns/replay-set.ts [heldout|tuning] [web|carrier] — every trial call of the
// evaluation set (the committed run's seed and sizes) replayed whole through the barge-in
// detector alone (call-sim.ts: simulated time, one channel per call, the caller's own turns in
// it): misses, latency and false interruptions per call, in about a minute. It stands in for the
// live run's quiet phase when trying a change of the barge-in detector (native/src/core/bargein*.cc);
// the live run (npm run bench:turns) is what gets reported. REPLAY_ONLY: a regular expression on call ids.
import { readFileSync } from 'node:fs';
import { evalSet, MATERIAL, type Half } from './eval-set.js';
import { synth, utterance } from './eval-audio.js';
import { simulateCall, type SimStep } from './call-sim.js';
import { Phrases } from '../../src/conversation/phrases.js';

const half = (process.argv[2] ?? 'heldout') as Half;
const paths = process.argv[3] ? [process.argv[3]] : ['web', 'carrier'];
const only = process.env.REPLAY_ONLY ? new RegExp(process.env.REPLAY_ONLY) : null;
const { eval: ev } = JSON.parse(readFileSync(new URL('../results/turns.json', import.meta.url), 'utf8'));
const m = MATERIAL[half];
const agent = { greeting: synth(m.greeting, m.agentVoice, 16000), answers: m.medium.map((t) => synth(t, m.agentVoice, 16000)), reminder: synth(Phrases.idleReminder, m.agentVoice, 16000) };
const loops = new Map<string, Float32Array>();

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

for (const path of paths) {
  const rate = path === 'web' ? 16000 : 8000;
  const calls = evalSet(ev.seed, ev.sizes).filter((c) => c.half === half && c.path === path && c.role === 'trials' && (!only || only.test(c.id)));
  const lat: number[] = [];
  let missed = 0;
  let falses = 0;
  const lines: string[] = [];
  for (const call of calls) {
    const { voice, pitch, speed, levelDbfs } = call.caller;
    const steps: SimStep[] = call.steps.map((s) =>
      s.do === 'barge' ? { do: 'barge', offsetMs: s.offsetMs, u: utterance([s.text.text], voice, rate, pitch, speed, levelDbfs) }
        : s.do === 'listen' ? { do: 'listen' }
          : { do: 'pause', quietMs: s.quietMs, u: utterance(s.parts, voice, rate, pitch, speed, levelDbfs, 600) });
    const line = call.line.kind === 'noise' ? { noise: call.line.noise } : call.line.kind === 'echo' ? { echo: call.line.echo } : {};
    const res = simulateCall(rate, line, agent, steps, call.seed, loops, half);
    if (process.env.VC_BI_DEBUG) console.error('CUTINS', JSON.stringify(res.cutIns));
    const f = res.falseListening + res.cutIns.reduce((s, c) => s + c.falseBefore, 0);
    falses += f;
    for (const c of res.cutIns) {
      lat.push(c.latencyMs ?? Infinity);
      if (c.latencyMs === null) missed++;
    }
    const desc = call.line.kind === 'noise' ? call.line.noise : call.line.kind === 'echo' ? `echo ${call.line.echo.delayMs}ms/-${call.line.echo.erlDb}dB` : 'clean';
    lines.push(`   ${call.id.split('/').slice(-1)[0]} ${desc.padEnd(16)} ${levelDbfs.toFixed(0).padStart(3)} dBFS: ${res.cutIns.map((c) => (c.latencyMs === null ? 'miss' : String(c.latencyMs)) + (c.falseBefore ? '!' : '')).join(' ')}${f ? `  (${f} false)` : ''}`);
  }
  const fmt = (v: number) => (v === Infinity ? 'miss' : String(Math.round(v)));
  console.log(`${half} ${path}: ${lat.length} cut-ins in ${calls.length} calls, p50 ${fmt(pct(lat, 0.5))}, p95 ${fmt(pct(lat, 0.95))}, ${missed} missed, ${falses} false interruptions (!: before a cut-in)`);
  console.log(lines.join('\n'));
}
