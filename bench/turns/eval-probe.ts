// npx tsx bench/turns/eval-probe.ts — the barge-in detector alone, in simulated time
// (bench/turns/probe.ts `simulate`: the engine's MediaChannel with the default options, 20 ms
// pacing with the 60 ms lead, no sockets, no load, no echo): latency from the caller's onset
// to the interruption event by the caller's level, the agent's voice (each half's) and how long
// the agent had been speaking, with the caller silent, before the cut-in. It separates what the
// detector does from what the machine and the engine add in the live evaluation.
import { SentenceSplitter } from '../../src/providers/llm/sentences.js';
import { activeLevel, synth, utterance } from './eval-audio.js';
import { MATERIAL, type Half } from './eval-set.js';
import { MediaChannel } from '../../src/audio/native.js';
import { CHANNEL_OPTIONS, simulate } from './probe.js';
import { RATE_IN_HZ, RATE_OUT_HZ } from './scenarios.js';

const LEVELS = [-15, -20, -25, -30, -35, -40];
const SPOKE_MS = [300, 1000, 3000, 8000];
/** Callers of each half: voice, pitch, speed, text. */
const CALLERS: Record<Half, [string, number, number, string][]> = {
  heldout: [
    ['en-gb-scotland+Gene', 40, 170, 'Wait, stop, I have another question.'],
    ['en-029+Belinda', 65, 150, 'No, I meant the other order.'],
    ['en-us-nyc+Mike', 35, 185, 'Sorry to cut in, but that is wrong.'],
    ['en-gb-x-gbclan+anika', 70, 160, 'Actually, can we start over?'],
  ],
  tuning: [
    ['en-us+m3', 45, 170, 'Wait, stop please.'],
    ['en-gb+f3', 65, 160, 'No, that is not what I asked.'],
    ['en-us+Andy', 40, 180, 'Sorry, can I ask something?'],
    ['en-gb-x-rp+Annie', 60, 150, 'Actually, one more thing.'],
  ],
};

function agentOf(half: Half): Int16Array {
  const splitter = new SentenceSplitter({ minChars: 2 });
  const parts = [...splitter.push(MATERIAL[half].long), splitter.flush()].filter((s): s is string => !!s).map((s) => synth(s, MATERIAL[half].agentVoice, RATE_OUT_HZ));
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** `procRateHz` 8000: the channel processes at 8 kHz, as it does for phone (carrier) sessions. */
export function levelSweep(procRateHz: 16000 | 8000 = 16000) {
  const channel = () => new MediaChannel({ ...CHANNEL_OPTIONS, procRateHz });
  const rows: { agent: Half; agent_level_dbfs: number; caller: Half; level_dbfs: number; spoke_ms: number; latency_ms: (number | null)[] }[] = [];
  for (const agentHalf of ['tuning', 'heldout'] as Half[]) {
    const agent = agentOf(agentHalf);
    const agentLevel = Math.round(activeLevel(agent, RATE_OUT_HZ) * 10) / 10;
    for (const callerHalf of ['tuning', 'heldout'] as Half[]) {
      for (const level of LEVELS) {
        const clips = CALLERS[callerHalf].map(([voice, pitch, speed, text]) => utterance([text], voice, RATE_IN_HZ, pitch, speed, level).pcm);
        for (const spoke of SPOKE_MS) {
          const latency = clips.map((pcm) => simulate({ agent, speech: { atMs: spoke, pcm }, durationMs: spoke + 3000, channel }).bargeLatencyMs);
          rows.push({ agent: agentHalf, agent_level_dbfs: agentLevel, caller: callerHalf, level_dbfs: level, spoke_ms: spoke, latency_ms: latency });
        }
      }
    }
  }
  return rows;
}

export function printSweep(rows: ReturnType<typeof levelSweep>, procRateHz = 16000): string {
  const lines = [`detector alone (simulated time, no echo, no load, processing at ${procRateHz / 1000} kHz): onset -> interruption, ms, for 4 callers (miss: none within 3 s)`];
  for (const agent of ['tuning', 'heldout'] as Half[]) {
    for (const caller of ['tuning', 'heldout'] as Half[]) {
      const rs = rows.filter((r) => r.agent === agent && r.caller === caller);
      lines.push(`  agent voice ${MATERIAL[agent].agentVoice} (${agent}, active level ${rs[0].agent_level_dbfs} dBFS), ${caller} callers; columns: agent had spoken ${SPOKE_MS.join(' / ')} ms`);
      for (const level of LEVELS) {
        const cells = SPOKE_MS.map((s) => rs.find((r) => r.level_dbfs === level && r.spoke_ms === s)!.latency_ms.map((v) => (v === null ? 'miss' : String(Math.round(v)))).join(',').padEnd(22));
        lines.push(`    caller ${String(level).padStart(3)} dBFS: ${cells.join(' | ')}`);
      }
    }
  }
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  console.log(printSweep(levelSweep(16000), 16000));
  if (process.env.BENCH_PROBE_8K !== '0') console.log(printSweep(levelSweep(8000), 8000));
}
