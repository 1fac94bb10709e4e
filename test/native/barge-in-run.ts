// A barge-in detector run over a whole mic track with the agent's audio as reference, for the
// barge-in tests: when each interruption was raised.
import { BargeInDetector, BargeInEvents, type BargeInOptions } from '../../src/audio/native.js';
import { FRAME_MS, agentTrack, noise, toInt16, type Track } from './corpus.js';

export interface RunOptions {
  micRateHz: number;
  /** The reference's rate (default: the mic's). */
  refRateHz?: number;
  bargeIn: BargeInOptions;
}

/** Stream times (ms, end of the frame) at which `interruption` was raised, over the shorter track. */
export function interruptionsAt(mic: Int16Array, ref: Int16Array, o: RunOptions): number[] {
  const refRateHz = o.refRateHz ?? o.micRateHz;
  const fs = (o.micRateHz * FRAME_MS) / 1000;
  const rfs = (refRateHz * FRAME_MS) / 1000;
  const d = new BargeInDetector({ micRateHz: o.micRateHz, refRateHz, frameMs: FRAME_MS, bargeIn: o.bargeIn });
  const at: number[] = [];
  const n = Math.floor(Math.min(mic.length / fs, ref.length / rfs));
  for (let f = 0; f < n; f++) {
    d.process(mic.subarray(f * fs, (f + 1) * fs), ref.subarray(f * rfs, (f + 1) * rfs));
    if (d.events & BargeInEvents.interruption) at.push((f + 1) * FRAME_MS);
  }
  return at;
}

/** Interruptions raised with the engine's settings (DEFAULT_INTERRUPTION: 100 ms, 600 ms window), mic and reference at one rate. */
export function engineInterruptionsAt(rateHz: number, mic: Int16Array, ref: Int16Array): number[] {
  return interruptionsAt(mic, ref, { micRateHz: rateHz, bargeIn: { minDurationMs: 100, maxEchoDelayMs: 600 } });
}

/** The agent's track as the reference, and a white hiss as long (seed 5) for the line. */
export function agentLine(rateHz: number): { agent: Track; ref: Int16Array; hiss: Float32Array } {
  const agent = agentTrack(rateHz);
  return { agent, ref: toInt16(agent.pcm), hiss: noise('white', agent.pcm.length, rateHz, 5) };
}

/**
 * The mic of a caller cutting in over a line: `line` (echo, or zeros) plus the white hiss, plus
 * `caller` scaled by `gain` and shifted so that its first onset falls at `atMs`.
 */
export function withCaller(rateHz: number, line: Float32Array, hiss: Float32Array, caller: Track, gain: number, atMs: number): Int16Array {
  const callerOnset = Math.round((caller.onsetsMs[0] * rateHz) / 1000);
  const shift = Math.round((atMs * rateHz) / 1000) - callerOnset;
  return toInt16(line.map((v, i) => {
    const j = i - shift;
    return v + 30 * hiss[i] + (j >= callerOnset && j < caller.pcm.length ? gain * caller.pcm[j] : 0);
  }));
}
