// A deterministic replica of one call's barge-in path, in process and in simulated time (no
// sockets, no scheduler): the session's pacing (20 ms frames, 60 ms lead, each frame pushed
// as the echo reference when sent), the caller's audio through the engine's MediaChannel with
// the engine's default barge-in options, and a caller that plays what it receives at real time
// and echoes it. Stalls of either side's event loop can be injected. It separates what the
// engine does by itself from what a loaded machine does to it (npx tsx bench/turns/probe.ts).
import { DEFAULT_INTERRUPTION, nativeBargeIn } from '../../src/conversation/interruption.js';
import { SentenceSplitter } from '../../src/providers/llm/sentences.js';
import { ChannelEvents, MediaChannel } from '../../src/audio/native.js';
import type { VcNativeAddon } from '../../src/audio/native-addon.js';
import { speak } from '../../test/native/corpus.js';
import { createRequire } from 'node:module';
import { PlayoutEcho } from './echo.js';
import { AGENT_VOICE, ECHO_PATHS, INTERRUPTIONS, LONG_ANSWER, RATE_IN_HZ, RATE_OUT_HZ, type EchoPath } from './scenarios.js';

const FRAME_MS = 20;
const LEAD_MS = 60;
const ECHO_TAIL_MS = 400;
const STEP_MS = 5;
const IN_FRAME = RATE_IN_HZ / 50;
const OUT_FRAME = RATE_OUT_HZ / 50;
/** The caller's 20 ms clock is not aligned with the server's pacer. */
const CLIENT_PHASE_MS = 7;

export const CHANNEL_OPTIONS = { inRateHz: RATE_IN_HZ, procRateHz: RATE_IN_HZ, refRateHz: RATE_OUT_HZ, frameMs: 20 as const, maxMessageBytes: 2048, vad: { stopMs: 500 }, bargeIn: nativeBargeIn(DEFAULT_INTERRUPTION) };

export interface SimStall {
  side: 'server' | 'client';
  atMs: number;
  ms: number;
}

export interface SimOptions {
  agent: Int16Array;
  echo?: EchoPath;
  speech?: { atMs: number; pcm: Int16Array };
  stalls?: SimStall[];
  durationMs: number;
  /**
   * What the engine does after a stall of its own event loop (VoiceSession -> CallPipeline.underrun):
   * when pacing finds the playhead behind real time while the answer still had audio (the far
   * end ran dry), that much silence goes into the echo reference first, so the reference stays a
   * timeline of what the caller actually heard.
   */
  padUnderruns?: boolean;
  /** Builds the channel (default: the engine's MediaChannel with the default barge-in options). */
  channel?: () => Pick<MediaChannel, 'process' | 'pushReference' | 'events'>;
}

export interface SimResult {
  /** Server time of every interruption event while the agent was audible. */
  interruptionsMs: number[];
  /** Speech onset (its first frame sent) → interruption, or null. */
  bargeLatencyMs: number | null;
}

export function simulate(o: SimOptions): SimResult {
  const channel = o.channel?.() ?? new MediaChannel(CHANNEL_OPTIONS);
  const echo = o.echo ? new PlayoutEcho(o.echo) : null;
  const agentFrames = Math.floor(o.agent.length / OUT_FRAME);
  const stalled = (side: SimStall['side'], t: number) => (o.stalls ?? []).some((s) => s.side === side && t >= s.atMs && t < s.atMs + s.ms);

  let next = 0; // next agent frame to send
  let playhead = 0;
  let lastSentMs = -Infinity;
  const toClient: Int16Array[] = []; // sent, not yet read by the client
  const toServer: { pcm: Int16Array; sentMs: number }[] = []; // sent, not yet read by the server
  let clientNext = CLIENT_PHASE_MS;
  let speechFrame = 0;
  let onsetMs: number | null = null;
  const res: SimResult = { interruptionsMs: [], bargeLatencyMs: null };

  const pace = (now: number) => {
    if (o.padUnderruns && next > 0 && next < agentFrames && playhead < now) {
      const samples = Math.floor(((now - playhead) * RATE_OUT_HZ) / 1000);
      if (samples > 0) channel.pushReference(new Int16Array(samples));
    }
    playhead = Math.max(playhead, now);
    while (playhead + FRAME_MS <= now + LEAD_MS && next < agentFrames) {
      const f = o.agent.subarray(next * OUT_FRAME, (next + 1) * OUT_FRAME);
      channel.pushReference(f);
      toClient.push(f);
      next++;
      lastSentMs = now;
      playhead += FRAME_MS;
    }
  };
  const audible = (now: number) => next < agentFrames || now < lastSentMs + LEAD_MS + ECHO_TAIL_MS;

  for (let now = 0; now < o.durationMs; now += STEP_MS) {
    // The caller: every 20 ms it reads what arrived, plays one frame and sends one microphone frame.
    if (!stalled('client', now)) {
      while (clientNext <= now) {
        const mic = new Int16Array(IN_FRAME);
        if (o.speech && clientNext >= o.speech.atMs && speechFrame * IN_FRAME < o.speech.pcm.length) {
          mic.set(o.speech.pcm.subarray(speechFrame * IN_FRAME, (speechFrame + 1) * IN_FRAME));
          if (speechFrame === 0) onsetMs = clientNext;
          speechFrame++;
        }
        // After a stall the caller's clock catches up first, then it reads the socket (as in the bench).
        if (clientNext > now - FRAME_MS) {
          for (const f of toClient) echo?.received(f);
          toClient.length = 0;
        }
        if (echo) {
          const e = echo.next();
          for (let i = 0; i < IN_FRAME; i++) mic[i] = Math.max(-32768, Math.min(32767, Math.round(mic[i] + e[i])));
        }
        toServer.push({ pcm: mic, sentMs: clientNext });
        clientNext += FRAME_MS;
      }
    }
    // The server: each message is processed, then paced (VoiceSession.onAudio); the pacer ticks too.
    if (!stalled('server', now)) {
      while (toServer.length) {
        const m = toServer.shift()!;
        channel.process(new Uint8Array(m.pcm.buffer));
        if (channel.events & ChannelEvents.interruption && audible(now)) {
          res.interruptionsMs.push(now);
          if (onsetMs !== null && res.bargeLatencyMs === null && now >= onsetMs) res.bargeLatencyMs = now - onsetMs;
        }
        pace(now);
      }
      pace(now);
    }
  }
  return res;
}

export function agentSpeech(): Int16Array {
  const splitter = new SentenceSplitter({ minChars: 2 });
  const parts = [...splitter.push(LONG_ANSWER), splitter.flush()].filter((s): s is string => !!s).map((s) => speak(s, AGENT_VOICE, RATE_OUT_HZ));
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function callerClip(text: string, voice: string): Int16Array {
  const pcm = speak(text, voice, RATE_IN_HZ);
  let first = 0;
  while (first < pcm.length && Math.abs(pcm[first]) < 300) first++;
  return pcm.subarray(first);
}


export function runProbes(channel?: SimOptions['channel']) {
  const agent = agentSpeech();
  const agentMs = (agent.length / RATE_OUT_HZ) * 1000;
  const phrases = INTERRUPTIONS.map(([t, v]) => ({ text: t, pcm: callerClip(t, v) }));

  // 1. Barge-in latency against how long the agent has been speaking (clean line, no stalls).
  const warmup = [300, 600, 1000, 2000, 3000, 5000, 8000, 12000].map((atMs) => {
    const lat = phrases.map((p) => simulate({ agent, speech: { atMs, pcm: p.pcm }, durationMs: atMs + 3000, channel }).bargeLatencyMs);
    return { agent_spoke_ms: atMs, latency_ms: Object.fromEntries(phrases.map((p, i) => [p.text, lat[i]])) };
  });

  // 2. Echo only, no stalls: any interruption is false.
  const echoNoStall = ECHO_PATHS.map((echo) => ({ echo: `${echo.delayMs} ms -${echo.attenuationDb} dB`, false_barge_ins: simulate({ agent, echo, durationMs: agentMs + 1000, channel }).interruptionsMs.length }));

  // 3. The same with one stall of the server's (or the caller's) event loop at 4, 8, 12 and 16 s.
  const stallRows = stallTable(agent, false, ['server', 'client'], channel);
  // 4. The same server stalls with the reference padded by the silence the caller heard.
  const padded = stallTable(agent, true, ['server'], channel);
  return { agent_answer_ms: Math.round(agentMs), barge_in_latency_vs_agent_speech_before: warmup, echo_without_stalls: echoNoStall, echo_with_one_stall: stallRows, server_stalls_with_padded_reference: padded };
}

export function stallTable(agent: Int16Array, padUnderruns: boolean, sides: SimStall['side'][] = ['server', 'client'], channel?: SimOptions['channel']) {
  const agentMs = (agent.length / RATE_OUT_HZ) * 1000;
  const rows: { side: string; stall_ms: number; false_barge_ins_per_stall: number; paths_with_false: string[] }[] = [];
  for (const side of sides) {
    for (const ms of [40, 60, 100, 200, 400]) {
      let total = 0;
      const paths: string[] = [];
      for (const echo of ECHO_PATHS) {
        const stalls = [4000, 8000, 12000, 16000].filter((t) => t + ms < agentMs).map((atMs) => ({ side, atMs, ms }));
        const n = simulate({ agent, echo, stalls, durationMs: agentMs + 1000, padUnderruns, channel }).interruptionsMs.length;
        total += n / stalls.length;
        if (n) paths.push(`${echo.delayMs} ms -${echo.attenuationDb} dB: ${n}/${stalls.length}`);
      }
      rows.push({ side, stall_ms: ms, false_barge_ins_per_stall: Math.round((total / ECHO_PATHS.length) * 100) / 100, paths_with_false: paths });
    }
  }
  return rows;
}

export function printProbes(p: ReturnType<typeof runProbes>): string {
  const lines = ['', 'probe (simulated time, engine MediaChannel with default barge-in options, no machine load):'];
  lines.push('  barge-in latency (ms) by how long the agent had spoken before the caller cut in:');
  for (const w of p.barge_in_latency_vs_agent_speech_before) lines.push(`    after ${String(w.agent_spoke_ms).padStart(5)} ms: ${Object.values(w.latency_ms).map((v) => String(v ?? 'miss').padStart(5)).join(' ')}`);
  lines.push(`  echo, no stalls: false barge-ins per path: ${p.echo_without_stalls.map((e) => `${e.echo}: ${e.false_barge_ins}`).join(', ')}`);
  lines.push('  echo with event-loop stalls: false barge-ins per stall (mean over the 7 paths)');
  for (const s of p.echo_with_one_stall) lines.push(`    ${s.side.padEnd(6)} stall ${String(s.stall_ms).padStart(3)} ms: ${s.false_barge_ins_per_stall}   ${s.paths_with_false.join('; ')}`);
  lines.push('  the same server stalls, the reference padded with the silence the caller heard during the stall (as the engine does):');
  for (const s of p.server_stalls_with_padded_reference) lines.push(`    ${s.side.padEnd(6)} stall ${String(s.stall_ms).padStart(3)} ms: ${s.false_barge_ins_per_stall}   ${s.paths_with_false.join('; ')}`);
  return lines.join('\n');
}

/**
 * Another build of the addon (a candidate fix of native/, built elsewhere with node-gyp), as
 * a MediaChannel with the same options: BENCH_ALT_NATIVE=/path/to/vc_native.node.
 */
function altChannel(path: string): SimOptions['channel'] {
  const addon = createRequire(import.meta.url)(path) as VcNativeAddon;
  const events = addon.channelFields.events;
  return () => {
    const n = new addon.MediaChannel({ ...CHANNEL_OPTIONS, quality: 1 });
    const info = n.info;
    return {
      process: (m: Uint8Array | ArrayBuffer) => n.process(m),
      pushReference: (pcm: Int16Array) => void n.pushReference(pcm),
      get events() {
        return info[events];
      },
    } as Pick<MediaChannel, 'process' | 'pushReference' | 'events'>;
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  console.log(printProbes(runProbes()));
  const alt = process.env.BENCH_ALT_NATIVE;
  if (alt) console.log(`\nwith ${alt}:${printProbes(runProbes(altChannel(alt)))}`);
}
