// The only module that loads the C++ addon (build/Release/vc_native.node).
// Typed wrappers over preallocated buffers: hot-path methods return counts
// and never allocate; bad input becomes a NativeError with a stable code.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/* eslint-disable @typescript-eslint/no-explicit-any */
function loadAddon(): any {
  const require = createRequire(import.meta.url);
  // Works from src/media (tsx) and dist/src/media (compiled).
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const p = join(dir, 'build', 'Release', 'vc_native.node');
    if (existsSync(p)) return require(p);
    dir = dirname(dir);
  }
  throw new NativeError('VC_ERR_NATIVE_NOT_BUILT', 'vc_native.node not found: run npm ci or npx node-gyp rebuild');
}

export class NativeError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'NativeError';
  }
}

const addon = loadAddon();
const statusTable: [string, string][] = addon.statusTable();

/** Turns a negative native return value into a thrown NativeError. */
function check(ret: number): number {
  if (ret >= 0) return ret;
  const row = statusTable[-ret] ?? ['VC_ERR_NATIVE_UNKNOWN', 'unknown native status'];
  throw new NativeError(row[0], row[1]);
}

/** Calls a native constructor, normalising its thrown error into NativeError. */
function construct<T>(make: () => T): T {
  try {
    return make();
  } catch (e: any) {
    throw new NativeError(e?.code ?? 'VC_ERR_NATIVE_INVALID_ARGUMENT', e?.message ?? String(e));
  }
}

export type FrameMs = 10 | 20 | 30;
export type PcmMessage = Uint8Array | ArrayBuffer;

export const VAD_STATES = ['quiet', 'starting', 'speaking', 'stopping'] as const;
export type VadState = (typeof VAD_STATES)[number];

/** Event bits returned by MediaChannel.process (see `events`). */
export const ChannelEvents = { speechStart: 1, speechEnd: 2, interruption: 4, interruptionEnd: 8 } as const;
export const VadEvents = { speechStart: 1, speechEnd: 2 } as const;
export const BargeInEvents = { interruption: 1, interruptionEnd: 2 } as const;

export interface FramerOptions { sampleRateHz: number; frameMs: FrameMs; maxMessageBytes?: number }

/** Socket messages of any even length -> fixed frames, partial frame carried. */
export class Framer {
  private readonly n: any;
  /** Frames of the last push, back to back (frameSamples each). */
  readonly output: Int16Array;
  readonly frameSamples: number;
  constructor(o: FramerOptions) {
    this.n = construct(() => new addon.Framer(o.sampleRateHz, o.frameMs, o.maxMessageBytes ?? 65536));
    this.output = this.n.output;
    this.frameSamples = this.n.frameSamples;
  }
  /** Returns the number of complete frames now in `output`. */
  push(message: PcmMessage): number { return check(this.n.push(message)); }
  get pendingSamples(): number { return this.n.pendingSamples(); }
  reset(): void { this.n.reset(); }
}

/**
 * default: <= 0.1 dB ripple to 0.9 x lower Nyquist, >= 80 dB from the Nyquist up.
 * fast: same passband, >= 80 dB from 1.1 x Nyquist, so aliases/images can only land
 * in the 0.9-1.0 transition band (half the taps). low: 60 dB, passband 0.8. high: ~100 dB.
 */
export type ResamplerQuality = 'low' | 'default' | 'high' | 'fast';
const QUALITY: Record<ResamplerQuality, number> = { low: 0, default: 1, high: 2, fast: 3 };

export interface ResamplerOptions {
  inRateHz: number;
  outRateHz: number;
  quality?: ResamplerQuality;
  /** Largest input per process() call; sizes `output`. */
  maxInputSamples?: number;
}

/** Streaming polyphase windowed-sinc resampler (any rational ratio, 8-48 kHz). */
export class Resampler {
  private readonly n: any;
  readonly output: Int16Array;
  readonly tapsPerPhase: number;
  /** Filter delay in output samples. */
  readonly delayOutSamples: number;
  constructor(o: ResamplerOptions) {
    this.n = construct(() => new addon.Resampler(o.inRateHz, o.outRateHz, QUALITY[o.quality ?? 'default'] ?? -1,
      o.maxInputSamples ?? 32768));
    this.output = this.n.output;
    this.tapsPerPhase = this.n.tapsPerPhase;
    this.delayOutSamples = this.n.delayOutSamples;
  }
  /** Resamples input; returns the number of samples written to `output`. */
  process(input: Int16Array): number { return check(this.n.process(input)); }
  /** Native bytes this instance owns (sample buffers and `output`; the shared filter table excluded). */
  get stateBytes(): number { return this.n.stateBytes; }
  /** Float path (no int16 rounding), used for measurements. */
  processFloat(input: Float32Array, output: Float32Array): number { return check(this.n.processFloat(input, output)); }
  outputSamplesFor(inputSamples: number): number { return this.n.outputSamplesFor(inputSamples); }
  reset(): void { this.n.reset(); }
}

export interface EchoChainOptions {
  inRateHz: number;
  outRateHz: number;
  frameMs?: FrameMs;
  /** Largest message per push (default 2048); sizes `output`. */
  maxMessageBytes?: number;
  quality?: ResamplerQuality;
  vad?: VadOptions;
}

/**
 * The echo pipeline's inbound path in one native call per message: PCM16LE bytes ->
 * frames (partial frame carried) -> VAD per frame -> resampled to outRateHz. Same
 * output as Framer + Vad + Resampler, with one frame of buffering.
 */
export class EchoChain {
  private readonly n: any;
  private readonly info: Float64Array;
  /** Resampled samples of the last push (outRateHz). */
  readonly output: Int16Array;
  readonly frameSamples: number;
  constructor(o: EchoChainOptions) {
    this.n = construct(() => new addon.EchoChain(o.inRateHz, o.outRateHz, o.frameMs ?? 20, o.maxMessageBytes ?? 2048,
      QUALITY[o.quality ?? 'default'] ?? -1, o.vad ?? {}));
    this.info = this.n.info;
    this.output = this.n.output;
    this.frameSamples = this.n.frameSamples;
  }
  /** Returns the samples now in `output`; throws NativeError (ODD_LENGTH, OVERSIZED). */
  push(message: PcmMessage): number { return check(this.n.push(message)); }
  /** Frames completed by the last push. */
  get frames(): number { return this.info[0]; }
  /** VAD of the last completed frame. */
  get probability(): number { return this.info[1]; }
  get vadState(): VadState { return VAD_STATES[this.info[2]]; }
  /** VadEvents bits of the frames of the last push. */
  get events(): number { return this.info[3]; }
  get speechStartMs(): number { return this.info[4]; }
  get speechEndMs(): number { return this.info[5]; }
  /** Native bytes this instance owns (the shared filter table excluded). */
  get stateBytes(): number { return this.n.stateBytes; }
  reset(): void { this.n.reset(); }
}

/** Introspection for tests, benchmarks and memory figures. */
export const nativeDebug = {
  /**
   * Resampler filter tables alive in this process. One table per (in rate, out rate,
   * quality) is shared by every Resampler and MediaChannel of that ratio.
   */
  resamplerTables(): { tables: number; bytes: number } {
    const [tables, bytes] = addon.resamplerTables() as [number, number];
    return { tables, bytes };
  },
  /**
   * Kernel used for small ratios: 'avx512', 'avx2' or 'generic' (from the CPU; the
   * VC_NATIVE_SIMD environment variable overrides). With a level, switches the whole
   * process to it and returns it, or '' when this CPU cannot run it.
   */
  resamplerSimd(level?: 'avx512' | 'avx2' | 'generic'): string {
    return level === undefined ? addon.resamplerSimd() : addon.resamplerSimd(level);
  },
};

function g711(op: number, input: Int16Array | Uint8Array, output: Int16Array | Uint8Array): number {
  return check(addon.g711(op, input, output));
}
export const G711 = {
  mulawEncode: (pcm: Int16Array, out = new Uint8Array(pcm.length)) => (g711(0, pcm, out), out),
  mulawDecode: (law: Uint8Array, out = new Int16Array(law.length)) => (g711(1, law, out), out),
  alawEncode: (pcm: Int16Array, out = new Uint8Array(pcm.length)) => (g711(2, pcm, out), out),
  alawDecode: (law: Uint8Array, out = new Int16Array(law.length)) => (g711(3, law, out), out),
  /** The μ-law of PCM16LE bytes as padded base64 text, written into `out` from `offset`; returns the characters written. */
  mulawBase64: (pcm: Uint8Array, out: Uint8Array, offset: number): number => check(addon.mulawBase64(pcm, out, offset)),
};

export interface DtmfToneOptions { sampleRateHz: number; durationMs?: number; gapMs?: number; levelDbfs?: number }

/** One DTMF key press (tone then silence). Allocates: not a per-frame call. */
export function dtmfGenerate(digit: string, o: DtmfToneOptions): Int16Array {
  return construct(() => addon.dtmfGenerate(o.sampleRateHz, digit, o.durationMs ?? 80, o.gapMs ?? 80, o.levelDbfs ?? -10));
}

/** Goertzel DTMF detector; each key press is reported once. */
export class DtmfDetector {
  private readonly n: any;
  private readonly digits: Uint8Array;
  constructor(sampleRateHz: number) {
    this.n = construct(() => new addon.DtmfDetector(sampleRateHz));
    this.digits = this.n.digits;
  }
  /** Returns newly detected digits ('' when none, without allocating). */
  process(pcm: Int16Array): string {
    const k = this.n.process(pcm);
    return k === 0 ? '' : String.fromCharCode(...this.digits.subarray(0, k));
  }
  reset(): void { this.n.reset(); }
}

export type AmbienceKind = 'white' | 'pink' | 'brown' | 'office_hum';
const AMBIENCE: Record<AmbienceKind, number> = { white: 0, pink: 1, brown: 2, office_hum: 3 };

/** Procedural background noise; level 0 (silent) .. 100 (about -12 dBFS RMS). */
export class Ambience {
  private readonly n: any;
  constructor(o: { sampleRateHz: number; kind: AmbienceKind; level: number; seed?: number }) {
    this.n = construct(() => new addon.Ambience(o.sampleRateHz, AMBIENCE[o.kind] ?? -1, o.level, o.seed ?? 1));
  }
  /** Fills (mix=false) or adds into (mix=true) `out`. */
  generate(out: Int16Array, mix = false): void { this.n.generate(out, mix); }
  setLevel(level: number): void { check(this.n.setLevel(level)); }
}

/** Two-input mixer with gains in dB and a soft limiter instead of wrap-around. */
export class Mixer {
  private readonly n: any;
  constructor(gainADb = 0, gainBDb = 0) { this.n = construct(() => new addon.Mixer(gainADb, gainBDb)); }
  mix(a: Int16Array, b: Int16Array | null, out: Int16Array): number { return check(this.n.mix(a, b, out)); }
  setGains(gainADb: number, gainBDb: number): void { check(this.n.setGains(gainADb, gainBDb)); }
  get clippedSamples(): number { return this.n.clippedSamples; }
}

export interface VadOptions {
  /** Probability counted as speech (0..1, default 0.5). */
  threshold?: number;
  /** Speech must last this long before `speaking` (default 60). */
  startMs?: number;
  /** Silence must last this long before leaving `speaking` (default 400). */
  stopMs?: number;
}

/** Per-frame speech probability plus quiet/starting/speaking/stopping state. */
export class Vad {
  private readonly n: any;
  private readonly info: Float64Array;
  readonly frameSamples: number;
  constructor(o: { sampleRateHz: number; frameMs: FrameMs } & VadOptions) {
    this.n = construct(() => new addon.Vad(o.sampleRateHz, o.frameMs, o));
    this.info = this.n.info;
    this.frameSamples = this.n.frameSamples;
  }
  /** Processes exactly one frame; returns its speech probability. */
  process(frame: Int16Array): number { return check(this.n.process(frame)); }
  get probability(): number { return this.info[0]; }
  get state(): VadState { return VAD_STATES[this.info[1]]; }
  /** VadEvents bits raised by the last frame. */
  get events(): number { return this.info[2]; }
  /** Stream time (ms) the current or last speech started, -1 if none. */
  get speechStartMs(): number { return this.info[3]; }
  get speechEndMs(): number { return this.info[4]; }
  reset(): void { this.n.reset(); }
}

/**
 * Native part of the barge-in strategy (InterruptionOptions-style). minWords,
 * falseInterruptionTimeoutMs and resumeFalseInterruption need transcripts and
 * playback state, so the session strategy applies them on top of these events.
 */
export interface BargeInOptions {
  /** Caller speech needed before an interruption fires (default 300). */
  minDurationMs?: number;
  /** Caller-speech probability threshold (default 0.5). */
  threshold?: number;
  /** Longest echo delay handled (default 300, max 990). */
  maxEchoDelayMs?: number;
  /** Headroom above the learned echo level (default 6 dB). */
  echoMarginDb?: number;
  /** A pause this long re-arms the detector (default 120). */
  gapMs?: number;
}
export const defaultBargeInOptions: Required<BargeInOptions> = {
  minDurationMs: 300, threshold: 0.5, maxEchoDelayMs: 300, echoMarginDb: 6, gapMs: 120,
};

/** Echo-aware barge-in on the caller's mic with the agent's audio as reference. */
export class BargeInDetector {
  private readonly n: any;
  private readonly info: Float64Array;
  readonly frameSamples: number;
  readonly refFrameSamples: number;
  constructor(o: { micRateHz: number; refRateHz: number; frameMs: FrameMs; bargeIn?: BargeInOptions; vad?: VadOptions }) {
    this.n = construct(() => new addon.BargeIn(o.micRateHz, o.refRateHz, o.frameMs, o.bargeIn ?? {}, o.vad ?? {}));
    this.info = this.n.info;
    this.frameSamples = this.n.frameSamples;
    this.refFrameSamples = this.n.refFrameSamples;
  }
  /** One mic frame and the reference frame played at the same time (null = silence). */
  process(mic: Int16Array, ref: Int16Array | null): number { return check(this.n.process(mic, ref)); }
  get callerProbability(): number { return this.info[0]; }
  get callerSpeech(): boolean { return this.info[1] === 1; }
  get agentActive(): boolean { return this.info[2] === 1; }
  /** BargeInEvents bits raised by the last frame. */
  get events(): number { return this.info[3]; }
  get interruptionMs(): number { return this.info[4]; }
  /** Plain VAD view of the mic (echo counts as speech here). */
  get vadProbability(): number { return this.info[5]; }
  get vadState(): VadState { return VAD_STATES[this.info[6]]; }
  reset(): void { this.n.reset(); }
}

export interface MediaChannelOptions {
  /** Caller PCM16 rate on the socket. */
  inRateHz: number;
  /** Rate of `output` frames and of VAD/barge-in (8000 or 16000). */
  procRateHz: number;
  /** Rate of the agent audio given to pushReference. */
  refRateHz: number;
  frameMs?: FrameMs;
  maxMessageBytes?: number;
  quality?: ResamplerQuality;
  vad?: VadOptions;
  bargeIn?: BargeInOptions;
  /** Agent audio kept for the echo reference (default 2000 ms); older audio is dropped. */
  referenceBufferMs?: number;
}

/**
 * Inbound hot path of one call: one process() per socket message does
 * validation, resampling, framing, VAD and echo-aware barge-in on
 * preallocated buffers and returns the frame count.
 */
export class MediaChannel {
  private readonly n: any;
  private readonly info: Float64Array;
  /** Frames of the last process() at procRateHz, back to back. */
  readonly output: Int16Array;
  /** Speech probability of each output frame. */
  readonly probabilities: Float32Array;
  /** Caller-speech (echo-removed) probability of each output frame. */
  readonly callerProbabilities: Float32Array;
  readonly frameSamples: number;
  constructor(o: MediaChannelOptions) {
    this.n = construct(() => new addon.MediaChannel({ ...o, quality: QUALITY[o.quality ?? 'default'] ?? -1 }));
    this.info = this.n.info;
    this.output = this.n.output;
    this.probabilities = this.n.probabilities;
    this.callerProbabilities = this.n.callerProbabilities;
    this.frameSamples = this.n.frameSamples;
  }
  /** Returns frames produced; throws NativeError (ODD_LENGTH, OVERSIZED) on bad input. */
  process(message: PcmMessage): number { return check(this.n.process(message)); }
  /** Agent audio (refRateHz) as it is played; consumed in step with the mic. */
  pushReference(pcm: Int16Array): void { check(this.n.pushReference(pcm)); }
  /** ChannelEvents bits of the last process(). */
  get events(): number { return this.info[0]; }
  get vadState(): VadState { return VAD_STATES[this.info[1]]; }
  get probability(): number { return this.info[2]; }
  get callerProbability(): number { return this.info[3]; }
  get speechStartMs(): number { return this.info[4]; }
  get speechEndMs(): number { return this.info[5]; }
  get interruptionMs(): number { return this.info[6]; }
  get agentActive(): boolean { return this.info[7] === 1; }
  reset(): void { this.n.reset(); }
}
