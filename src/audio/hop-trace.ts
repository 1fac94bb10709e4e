// The barge-in detector's per-hop trace of a MediaChannel (traceHops): what it decided on each
// 10 ms hop and on what figures, for benchmarks that replay a call and ask why a cut-in was slow
// (bench/turns/trace-call.ts). Field names come from the addon (native/include/vc/bargein_hop_fields.h).
import { MediaChannel, nativeInternals } from './native.js';

const FIELDS = nativeInternals.addon.hopFields;

/** Bits of TracedHop.flags. */
export const HopFlags = {
  evidence: 1, energy: 2, waveform: 4, bandResidual: 8, echoVeto: 16, burstTail: 32, underOnset: 64, echoSeen: 128, nearBar: 256,
} as const;

export interface TracedHop {
  /** The hop's start, ms since the stream's first sample. */
  streamMs: number;
  callerProbability: number;
  likelihood: number;
  /** The mic over (noise background + echo bound). */
  excess: number;
  /** Band powers summed: the mic as judged, the noise plus the line's loud-moment bar, the echo bound. */
  heard: number;
  lineNoise: number;
  echoBound: number;
  /** The trusted echo delay in hops (-1: none). */
  delayHops: number;
  /** The evidence run's credit after this hop (an interruption at minDurationMs). */
  creditMs: number;
  flags: number;
}

const INDEX = Object.fromEntries(FIELDS.map((name, i) => [name, i])) as Record<keyof TracedHop, number>;
for (const name of ['streamMs', 'callerProbability', 'likelihood', 'excess', 'heard', 'lineNoise', 'echoBound', 'delayHops', 'creditMs', 'flags'] as const) {
  if (!Number.isInteger(INDEX[name])) throw new Error(`vc_native.node has no hop field ${name}: rebuild it (npx node-gyp rebuild)`);
}

/** The hops of the last process() that made `frames` frames (the channel traces with traceHops(true)). */
export function readHops(channel: MediaChannel, frames: number): TracedHop[] {
  const raw = channel.hopTrace;
  const hops = frames * ((channel.options.frameMs ?? 20) / 10);
  const out: TracedHop[] = [];
  for (let h = 0; h < hops && (h + 1) * FIELDS.length <= raw.length; h++) {
    const at = (name: keyof TracedHop) => raw[h * FIELDS.length + INDEX[name]];
    out.push({
      streamMs: at('streamMs'), callerProbability: at('callerProbability'), likelihood: at('likelihood'), excess: at('excess'),
      heard: at('heard'), lineNoise: at('lineNoise'), echoBound: at('echoBound'), delayHops: at('delayHops'),
      creditMs: at('creditMs'), flags: at('flags'),
    });
  }
  return out;
}
