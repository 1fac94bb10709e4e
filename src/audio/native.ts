// The only module that loads the C++ addon (build/Release/vc_native.node).
// Typed wrappers over preallocated buffers: hot-path methods return counts
// and never allocate; bad input becomes a NativeError with a stable code.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  PcmMessage, RawAmbience, RawBargeIn, RawDtmfDetector, RawEchoChain, RawFramer, RawMediaChannel, RawMixer,
  RawResampler, RawVad, VcNativeAddon,
} from './native-addon.js';
import { NativeError } from './native-error.js';
import {
  checkOptions, optionSpecs, type Spec, type AmbienceKind, type AmbienceOptions, type BargeInDetectorOptions, type BargeInOptions,
  type DtmfToneOptions, type EchoChainOptions, type FramerOptions, type MediaChannelOptions, type MixerOptions,
  type ResamplerOptions, type ResamplerQuality, type VadDetectorOptions,
} from './native-options.js';

export { NativeError } from './native-error.js';
export { BAD_OPTION } from './native-options.js';
export type { PcmMessage } from './native-addon.js';
export type {
  AmbienceKind, AmbienceOptions, BargeInDetectorOptions, BargeInOptions, DtmfDetectorOptions, DtmfToneOptions,
  EchoChainOptions, FrameMs, FramerOptions, MediaChannelOptions, MixerOptions, ResamplerOptions, ResamplerQuality,
  VadDetectorOptions, VadOptions,
} from './native-options.js';

function loadAddon(): VcNativeAddon {
  const require = createRequire(import.meta.url);
  // Works from src/media (tsx) and dist/src/media (compiled).
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const p = join(dir, 'build', 'Release', 'vc_native.node');
    if (existsSync(p)) return require(p) as VcNativeAddon;
    dir = dirname(dir);
  }
  throw new NativeError('VC_ERR_NATIVE_NOT_BUILT', 'vc_native.node not found: run npm ci or npx node-gyp rebuild');
}

const addon = loadAddon();
const statusTable = addon.statusTable();

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
  } catch (e) {
    if (e instanceof NativeError) throw e;
    const { code, message } = (e ?? {}) as { code?: unknown; message?: unknown };
    throw new NativeError(typeof code === 'string' ? code : 'VC_ERR_NATIVE_INVALID_ARGUMENT',
      typeof message === 'string' ? message : String(e));
  }
}

/** Checks the options against their spec, then builds the native object from them. */
function build<O, N>(what: string, o: O, spec: Spec<O>, make: (o: O) => N): N {
  checkOptions(what, o, spec);
  return construct(() => make(o));
}

/**
 * A facade over one native object `n`, built once (see `build`). Subclasses pick its
 * preallocated views off `n` in field initialisers, so per-frame calls only read fields.
 */
abstract class Facade<N> {
  protected constructor(protected readonly n: N) {}
}

/**
 * MediaChannel `info` index of each field this file reads, from the addon's table
 * (native/include/vc/channel_fields.h); a build without one of them fails here, at load.
 */
function fieldIndex<const N extends string>(table: Readonly<Record<string, number>>, names: readonly N[]) {
  const out = {} as Record<N, number>;
  for (const n of names) {
    const i = table[n];
    if (!Number.isInteger(i)) {
      throw new NativeError('VC_ERR_NATIVE_NOT_BUILT', `vc_native.node has no channel field ${n}: rebuild it (npx node-gyp rebuild)`);
    }
    out[n] = i;
  }
  return Object.freeze(out);
}
const CH = fieldIndex(addon.channelFields, [
  'events', 'vadState', 'probability', 'callerProbability', 'speechStartMs', 'speechEndMs', 'interruptionMs', 'agentActive',
]);

export const VAD_STATES = ['quiet', 'starting', 'speaking', 'stopping'] as const;
export type VadState = (typeof VAD_STATES)[number];

/** Event bits returned by MediaChannel.process (see `events`). */
export const ChannelEvents = { speechStart: 1, speechEnd: 2, interruption: 4, interruptionEnd: 8 } as const;
export const VadEvents = { speechStart: 1, speechEnd: 2 } as const;
export const BargeInEvents = { interruption: 1, interruptionEnd: 2 } as const;

/** Socket messages of any even length -> fixed frames, partial frame carried. */
export class Framer extends Facade<RawFramer> {
  /** Frames of the last push, back to back (frameSamples each). */
  readonly output = this.n.output;
  readonly frameSamples = this.n.frameSamples;
  constructor(o: FramerOptions) {
    super(build('Framer', o, optionSpecs.Framer, (v) => new addon.Framer(v)));
  }
  /** Returns the number of complete frames now in `output`. */
  push(message: PcmMessage): number { return check(this.n.push(message)); }
  get pendingSamples(): number { return this.n.pendingSamples(); }
  reset(): void { this.n.reset(); }
}

const QUALITY: Record<ResamplerQuality, number> = { low: 0, default: 1, high: 2, fast: 3 };
/** Options with the quality name as the number the addon takes. */
const numbered = <T extends { quality?: ResamplerQuality }>(o: T) => ({ ...o, quality: QUALITY[o.quality ?? 'default'] });

/** Streaming polyphase windowed-sinc resampler (any rational ratio, 8-48 kHz). */
export class Resampler extends Facade<RawResampler> {
  readonly output = this.n.output;
  readonly tapsPerPhase = this.n.tapsPerPhase;
  /** Filter delay in output samples. */
  readonly delayOutSamples = this.n.delayOutSamples;
  constructor(o: ResamplerOptions) {
    super(build('Resampler', o, optionSpecs.Resampler, (v) => new addon.Resampler(numbered(v))));
  }
  /** Exact number of samples the next `inputSamples` of input will write (to size buffers). */
  outputSamplesFor(inputSamples: number): number { return this.n.outputSamplesFor(inputSamples); }
  /** Resamples input; returns the number of samples written to `output`. */
  process(input: Int16Array): number { return check(this.n.process(input)); }
  /** Float path (no int16 rounding), used for measurements. */
  processFloat(input: Float32Array, output: Float32Array): number { return check(this.n.processFloat(input, output)); }
  /** Native bytes this instance owns (sample buffers and `output`; the shared filter table excluded). */
  get stateBytes(): number { return this.n.stateBytes; }
  reset(): void { this.n.reset(); }
}

/**
 * The echo pipeline's inbound path in one native call per message: PCM16LE bytes ->
 * frames (partial frame carried) -> VAD per frame -> resampled to outRateHz. Same
 * output as Framer + Vad + Resampler, with one frame of buffering.
 */
export class EchoChain extends Facade<RawEchoChain> {
  private readonly info = this.n.info;
  readonly frameSamples = this.n.frameSamples;
  /** The most samples one push can produce: the length `pushInto` needs. */
  readonly maxOutputSamples = this.n.maxOutputSamples;
  constructor(o: EchoChainOptions) {
    super(build('EchoChain', o, optionSpecs.EchoChain, (v) => new addon.EchoChain(numbered(v))));
  }
  /** Resampled samples of the last push (outRateHz); this instance's own array, made on first use. */
  get output(): Int16Array { return this.n.output; }
  /** Returns the samples now in `output`; throws NativeError (ODD_LENGTH, OVERSIZED). */
  push(message: PcmMessage): number { return check(this.n.push(message)); }
  /**
   * As `push`, into `out` (at least maxOutputSamples long) instead of `output`: chains whose
   * output is used before the next push of any of them can share one array.
   */
  pushInto(message: PcmMessage, out: Int16Array): number { return check(this.n.push(message, out)); }
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
    const [tables, bytes] = addon.resamplerTables();
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

function g711(op: 0 | 1 | 2 | 3, input: Int16Array | Uint8Array, output: Int16Array | Uint8Array): number {
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

/** One DTMF key press (tone then silence). Allocates: not a per-frame call. */
export function dtmfGenerate(digit: string, o: DtmfToneOptions): Int16Array {
  return build('dtmfGenerate', o, optionSpecs.dtmfGenerate, (v) => addon.dtmfGenerate(digit, v));
}

/** Goertzel DTMF detector; each key press is reported once. */
export class DtmfDetector extends Facade<RawDtmfDetector> {
  private readonly digits = this.n.digits;
  constructor(sampleRateHz: number) {
    super(build('DtmfDetector', { sampleRateHz }, optionSpecs.DtmfDetector, (o) => new addon.DtmfDetector(o)));
  }
  /** Returns newly detected digits ('' when none, without allocating). */
  process(pcm: Int16Array): string {
    const k = this.n.process(pcm);
    return k === 0 ? '' : String.fromCharCode(...this.digits.subarray(0, k));
  }
  reset(): void { this.n.reset(); }
}

const AMBIENCE: Record<AmbienceKind, number> = { white: 0, pink: 1, brown: 2, office_hum: 3 };

/** Procedural background noise; level 0 (silent) .. 100 (about -12 dBFS RMS). */
export class Ambience extends Facade<RawAmbience> {
  constructor(o: AmbienceOptions) {
    super(build('Ambience', o, optionSpecs.Ambience, (v) => new addon.Ambience({ ...v, kind: AMBIENCE[v.kind] })));
  }
  /** Fills (mix=false) or adds into (mix=true) `out`. */
  generate(out: Int16Array, mix = false): void { this.n.generate(out, mix); }
  setLevel(level: number): void { check(this.n.setLevel(level)); }
}

/** Two-input mixer with gains in dB and a soft limiter instead of wrap-around. */
export class Mixer extends Facade<RawMixer> {
  constructor(gainADb = 0, gainBDb = 0) {
    super(build<MixerOptions, RawMixer>('Mixer', { gainADb, gainBDb }, optionSpecs.Mixer, (o) => new addon.Mixer(o)));
  }
  mix(a: Int16Array, b: Int16Array | null, out: Int16Array): number { return check(this.n.mix(a, b, out)); }
  setGains(gainADb: number, gainBDb: number): void { check(this.n.setGains(gainADb, gainBDb)); }
  get clippedSamples(): number { return this.n.clippedSamples; }
}

/** Per-frame speech probability plus quiet/starting/speaking/stopping state. */
export class Vad extends Facade<RawVad> {
  private readonly info = this.n.info;
  readonly frameSamples = this.n.frameSamples;
  constructor(o: VadDetectorOptions) {
    super(build('Vad', o, optionSpecs.Vad, (v) => new addon.Vad(v)));
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

export const defaultBargeInOptions: Required<BargeInOptions> = {
  minDurationMs: 300, threshold: 0.5, maxEchoDelayMs: 300, echoMarginDb: 6, gapMs: 120, echoCancellerMs: 0,
};

/** Echo-aware barge-in on the caller's mic with the agent's audio as reference. */
export class BargeInDetector extends Facade<RawBargeIn> {
  private readonly info = this.n.info;
  readonly frameSamples = this.n.frameSamples;
  readonly refFrameSamples = this.n.refFrameSamples;
  constructor(o: BargeInDetectorOptions) {
    super(build('BargeInDetector', o, optionSpecs.BargeIn, (v) => new addon.BargeIn(v)));
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

/**
 * Inbound hot path of one call: one process() per socket message does
 * validation, resampling, framing, VAD and echo-aware barge-in on
 * preallocated buffers and returns the frame count.
 */
export class MediaChannel extends Facade<RawMediaChannel> {
  private readonly info = this.n.info;
  /** Frames of the last process() at procRateHz, back to back. */
  readonly output = this.n.output;
  /** Speech probability of each output frame. */
  readonly probabilities = this.n.probabilities;
  /** Caller-speech (echo-removed) probability of each output frame. */
  readonly callerProbabilities = this.n.callerProbabilities;
  readonly frameSamples = this.n.frameSamples;
  /** The options it was built with (a benchmark's tape replays a call through a channel built alike). */
  readonly options: Readonly<MediaChannelOptions>;
  constructor(o: MediaChannelOptions) {
    super(build('MediaChannel', o, optionSpecs.MediaChannel, (v) => new addon.MediaChannel(numbered(v))));
    this.options = o;
  }
  /** Returns frames produced; throws NativeError (ODD_LENGTH, OVERSIZED) on bad input. */
  process(message: PcmMessage): number { return check(this.n.process(message)); }
  /** Agent audio (refRateHz) as it is played; consumed in step with the mic. */
  pushReference(pcm: Int16Array): void { check(this.n.pushReference(pcm)); }
  /** ChannelEvents bits of the last process(). */
  get events(): number { return this.info[CH.events]; }
  get vadState(): VadState { return VAD_STATES[this.info[CH.vadState]]; }
  get probability(): number { return this.info[CH.probability]; }
  get callerProbability(): number { return this.info[CH.callerProbability]; }
  get speechStartMs(): number { return this.info[CH.speechStartMs]; }
  get speechEndMs(): number { return this.info[CH.speechEndMs]; }
  get interruptionMs(): number { return this.info[CH.interruptionMs]; }
  get agentActive(): boolean { return this.info[CH.agentActive] === 1; }
  reset(): void { this.n.reset(); }
  /** Records what the barge-in detector decided on each 10 ms hop from now on (read with readHops, hop-trace.ts). */
  traceHops(on: boolean): void { this.n.traceHops(on); }
  /** The last process()'s hops, raw (hop-trace.ts reads them); empty while tracing is off. */
  get hopTrace(): Float32Array { return this.n.hopTrace; }
}

/** The loaded addon and the construction/return-value helpers, for facades in their own files (beep-detector.ts). */
export const nativeInternals = { addon, check, build } as const;
