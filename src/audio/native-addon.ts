// The shape of build/Release/vc_native.node as src/audio/native.ts loads it (types
// only: nothing here loads the addon). Constructors take one options object, the
// public option types except that enums (quality, kind) are numbers; the C++
// refuses wrong types and unknown keys itself (VC_ERR_NATIVE_BAD_OPTION).
import type {
  BargeInDetectorOptions, DtmfDetectorOptions, DtmfToneOptions, EchoChainOptions, FramerOptions,
  MediaChannelOptions, MixerOptions, ResamplerOptions, VadDetectorOptions, AmbienceOptions,
} from './native-options.js';

export type PcmMessage = Uint8Array | ArrayBuffer;

/** T with the enum keys K as numbers (optional stays optional). */
type Numbered<T, K extends keyof T> = Omit<T, K> & { [P in keyof Pick<T, K>]: number };

export interface RawFramer {
  readonly output: Int16Array;
  readonly frameSamples: number;
  push(message: PcmMessage): number;
  pendingSamples(): number;
  reset(): void;
}

export interface RawResampler {
  readonly output: Int16Array;
  readonly tapsPerPhase: number;
  readonly delayOutSamples: number;
  readonly stateBytes: number;
  process(input: Int16Array): number;
  processFloat(input: Float32Array, output: Float32Array): number;
  outputSamplesFor(inputSamples: number): number;
  reset(): void;
}

export interface RawEchoChain {
  /** Made on first read (or first push without `out`). */
  readonly output: Int16Array;
  readonly info: Float64Array;
  readonly frameSamples: number;
  readonly maxOutputSamples: number;
  readonly stateBytes: number;
  push(message: PcmMessage, out?: Int16Array): number;
  reset(): void;
}

export interface RawVad {
  readonly info: Float64Array;
  readonly frameSamples: number;
  process(frame: Int16Array): number;
  reset(): void;
}

export interface RawBargeIn {
  readonly info: Float64Array;
  readonly frameSamples: number;
  readonly refFrameSamples: number;
  process(mic: Int16Array, ref: Int16Array | null): number;
  reset(): void;
}

export interface RawMediaChannel {
  readonly output: Int16Array;
  readonly probabilities: Float32Array;
  readonly callerProbabilities: Float32Array;
  /** Per-message summary, indexed by `channelFields`. */
  readonly info: Float64Array;
  readonly frameSamples: number;
  process(message: PcmMessage): number;
  pushReference(pcm: Int16Array): number;
  reset(): void;
  /** Turns the per-hop barge-in trace on or off (vc/bargein_hop_fields.h). */
  traceHops(on: boolean): void;
  /** After process(): frames x hops per frame x hopFields.length floats (stale past them); empty while off. */
  readonly hopTrace: Float32Array;
}

export interface RawDtmfDetector {
  readonly digits: Uint8Array;
  process(pcm: Int16Array): number;
  reset(): void;
}

export interface RawBeepDetector {
  /** [endMs, startMs, frequencyHz, levelDbfs, detectedAtMs] of the newest beep (-1 before one). */
  readonly info: Float64Array;
  process(pcm: Int16Array): number;
  reset(): void;
}

export interface RawAmbience {
  generate(out: Int16Array, mix: boolean): number;
  setLevel(level: number): number;
}

export interface RawMixer {
  readonly clippedSamples: number;
  mix(a: Int16Array, b: Int16Array | null, out: Int16Array): number;
  setGains(gainADb: number, gainBDb: number): number;
}

export interface VcNativeAddon {
  /** [code, message] per status number (index = -return value). */
  statusTable(): [code: string, message: string][];
  /** MediaChannel info index by field name (native/include/vc/channel_fields.h). */
  readonly channelFields: Readonly<Record<string, number>>;
  /** The floats of a traced barge-in hop, in order (native/include/vc/bargein_hop_fields.h). */
  readonly hopFields: readonly string[];
  /** op 0 mu-encode, 1 mu-decode, 2 A-encode, 3 A-decode; returns samples or -status. */
  g711(op: 0 | 1 | 2 | 3, input: Int16Array | Uint8Array, output: Int16Array | Uint8Array): number;
  mulawBase64(pcm: Uint8Array, out: Uint8Array, offset: number): number;
  resamplerTables(): [tables: number, bytes: number];
  resamplerSimd(level?: string): string;
  dtmfGenerate(digit: string, o: DtmfToneOptions): Int16Array;
  Framer: new (o: FramerOptions) => RawFramer;
  Resampler: new (o: Numbered<ResamplerOptions, 'quality'>) => RawResampler;
  EchoChain: new (o: Numbered<EchoChainOptions, 'quality'>) => RawEchoChain;
  Vad: new (o: VadDetectorOptions) => RawVad;
  BargeIn: new (o: BargeInDetectorOptions) => RawBargeIn;
  MediaChannel: new (o: Numbered<MediaChannelOptions, 'quality'>) => RawMediaChannel;
  DtmfDetector: new (o: DtmfDetectorOptions) => RawDtmfDetector;
  Ambience: new (o: Numbered<AmbienceOptions, 'kind'>) => RawAmbience;
  BeepDetector: new (o: { sampleRateHz: number }) => RawBeepDetector;
  Mixer: new (o: MixerOptions) => RawMixer;
}
