// Option objects of the native classes and their construction-time check. Each
// spec mirrors what the C++ accepts (the reads in native/src/binding/*_wrap.cc and
// the ranges of the core's Init): a wrong type, a non-finite number, a non-integer,
// a missing required key or an unknown key is VC_ERR_BAD_OPTION; a value outside
// the core's range gets the code the core gives it, so callers see the same code
// whichever side catches it. Per-frame calls are never checked here.
import { NativeError } from './native-error.js';

export const BAD_OPTION = 'VC_ERR_BAD_OPTION';
const INVALID = 'VC_ERR_NATIVE_INVALID_ARGUMENT';

export type FrameMs = 10 | 20 | 30;
/**
 * default: <= 0.1 dB ripple to 0.9 x lower Nyquist, >= 80 dB from the Nyquist up.
 * fast: same passband, >= 80 dB from 1.1 x Nyquist, so aliases/images can only land
 * in the 0.9-1.0 transition band (half the taps). low: 60 dB, passband 0.8. high: ~100 dB.
 */
export type ResamplerQuality = 'low' | 'default' | 'high' | 'fast';
export const RESAMPLER_QUALITIES = ['low', 'default', 'high', 'fast'] as const satisfies readonly ResamplerQuality[];
export type AmbienceKind = 'white' | 'pink' | 'brown' | 'office_hum';
export const AMBIENCE_KINDS = ['white', 'pink', 'brown', 'office_hum'] as const satisfies readonly AmbienceKind[];

export interface FramerOptions {
  sampleRateHz: number;
  frameMs: FrameMs;
  /** Largest message per push (default 65536, 2..16 MiB). */
  maxMessageBytes?: number;
}

export interface ResamplerOptions {
  inRateHz: number;
  outRateHz: number;
  quality?: ResamplerQuality;
  /** Largest input per process() call (default 32768, up to 4 Mi); sizes `output`. */
  maxInputSamples?: number;
}

export interface VadOptions {
  /** Probability counted as speech (0..1 exclusive, default 0.5). */
  threshold?: number;
  /** Speech must last this long before `speaking` (ms, default 60, 0..10000). */
  startMs?: number;
  /** Silence must last this long before leaving `speaking` (ms, default 400, 0..10000). */
  stopMs?: number;
}

export interface VadDetectorOptions extends VadOptions {
  sampleRateHz: number;
  frameMs: FrameMs;
}

export interface EchoChainOptions {
  inRateHz: number;
  outRateHz: number;
  frameMs?: FrameMs;
  /** Largest message per push (default 2048, 2..1 MiB); sizes `output`. */
  maxMessageBytes?: number;
  quality?: ResamplerQuality;
  vad?: VadOptions;
}

/**
 * Native part of the barge-in strategy (InterruptionOptions-style). minWords,
 * falseInterruptionTimeoutMs and resumeFalseInterruption need transcripts and
 * playback state, so the session strategy applies them on top of these events.
 */
export interface BargeInOptions {
  /** Caller speech needed before an interruption fires (ms, default 300, 0..10000). */
  minDurationMs?: number;
  /** Caller-speech probability threshold (0..1 exclusive, default 0.5). */
  threshold?: number;
  /** Longest echo delay handled (ms, default 300, 0..990). */
  maxEchoDelayMs?: number;
  /** Headroom above the learned echo level (dB, default 6, 0..30). */
  echoMarginDb?: number;
  /** A pause this long re-arms the detector (ms, default 120, 0..10000). */
  gapMs?: number;
  /**
   * Filter length of the sample-domain echo canceller (ms, default 0: off, 0..64; 32 is what was
   * measured). Off by default: see docs/benchmarks-turns.md, round 11.
   */
  echoCancellerMs?: number;
}

export interface BargeInDetectorOptions {
  micRateHz: number;
  refRateHz: number;
  frameMs: FrameMs;
  bargeIn?: BargeInOptions;
  vad?: VadOptions;
}

export interface MediaChannelOptions {
  /** Caller PCM16 rate on the socket. */
  inRateHz: number;
  /** Rate of `output` frames and of VAD/barge-in (8000 or 16000). */
  procRateHz: number;
  /** Rate of the agent audio given to pushReference. */
  refRateHz: number;
  frameMs?: FrameMs;
  /** Largest message per process() (default 65536, 2..1 MiB). */
  maxMessageBytes?: number;
  quality?: ResamplerQuality;
  vad?: VadOptions;
  bargeIn?: BargeInOptions;
  /** Agent audio kept for the echo reference (ms, default 2000, 20..10000); older audio is dropped. */
  referenceBufferMs?: number;
}

export interface DtmfToneOptions {
  sampleRateHz: number;
  /** Tone length (ms, default 80, 0..10000). */
  durationMs?: number;
  /** Silence after the tone (ms, default 80, 0..10000). */
  gapMs?: number;
  /** Level of each of the two tones (dBFS, default -10, -60..-6). */
  levelDbfs?: number;
}

export interface DtmfDetectorOptions { sampleRateHz: number }

export interface AmbienceOptions {
  sampleRateHz: number;
  kind: AmbienceKind;
  /** 0 (silent) .. 100 (about -12 dBFS RMS), an integer. */
  level: number;
  /** Noise generator seed (default 1, 0..2^32-1). */
  seed?: number;
}

export interface MixerOptions {
  /** Gain of input A (dB, default 0, -96..24). */
  gainADb?: number;
  gainBDb?: number;
}

/** A value outside min..max gets `code`, the code the core gives it. */
interface Ranged { readonly min: number; readonly max: number; readonly code: string }
type Rule = (
  | (Ranged & { readonly kind: 'int'; readonly oneOf?: readonly number[] })
  // open: the bounds themselves are out; f32: the C++ compares the value as a float.
  | (Ranged & { readonly kind: 'num'; readonly open?: true; readonly f32?: true })
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  | { readonly kind: 'obj'; readonly spec: AnySpec }
) & { readonly req?: true };
type AnySpec = { readonly [key: string]: Rule };
/** One rule per option key; the keys the interface requires must be marked `req`. */
export type Spec<T> = {
  readonly [K in keyof T]-?: Partial<Pick<T, K>> extends Pick<T, K> ? Rule : Rule & { readonly req: true };
};

const int = (min: number, max: number, code = INVALID) => ({ kind: 'int', min, max, code }) as const;
const num = (min: number, max: number) => ({ kind: 'num', min, max, code: INVALID }) as const;
const req = <R extends Rule>(r: R) => ({ ...r, req: true }) as const;
const rate = req(int(8000, 48000, 'VC_ERR_NATIVE_UNSUPPORTED_RATE'));
const frame = { kind: 'int', min: 10, max: 30, oneOf: [10, 20, 30], code: 'VC_ERR_NATIVE_UNSUPPORTED_FRAME' } as const;
const probability = { kind: 'num', min: 0, max: 1, open: true, f32: true, code: INVALID } as const;
const quality = { kind: 'enum', values: RESAMPLER_QUALITIES } as const;
const ms = int(0, 10000);

const vad: Spec<VadOptions> = { threshold: probability, startMs: ms, stopMs: ms };
const bargeIn: Spec<BargeInOptions> = {
  minDurationMs: ms, threshold: probability, maxEchoDelayMs: int(0, 990),
  echoMarginDb: { ...num(0, 30), f32: true }, gapMs: ms, echoCancellerMs: int(0, 64),
};

/** Rules of every native class, keyed by class (tests walk them against the C++). */
export const optionSpecs = {
  Framer: { sampleRateHz: rate, frameMs: req(frame), maxMessageBytes: int(2, 2 ** 24) } satisfies Spec<FramerOptions>,
  Resampler: {
    inRateHz: rate, outRateHz: rate, quality, maxInputSamples: int(1, 2 ** 22),
  } satisfies Spec<ResamplerOptions>,
  EchoChain: {
    inRateHz: rate, outRateHz: rate, frameMs: frame, maxMessageBytes: int(2, 2 ** 20), quality,
    vad: { kind: 'obj', spec: vad },
  } satisfies Spec<EchoChainOptions>,
  Vad: { sampleRateHz: rate, frameMs: req(frame), ...vad } satisfies Spec<VadDetectorOptions>,
  BargeIn: {
    micRateHz: rate, refRateHz: rate, frameMs: req(frame),
    bargeIn: { kind: 'obj', spec: bargeIn }, vad: { kind: 'obj', spec: vad },
  } satisfies Spec<BargeInDetectorOptions>,
  MediaChannel: {
    inRateHz: rate, procRateHz: rate, refRateHz: rate, frameMs: frame, maxMessageBytes: int(2, 2 ** 20), quality,
    vad: { kind: 'obj', spec: vad }, bargeIn: { kind: 'obj', spec: bargeIn }, referenceBufferMs: int(20, 10000),
  } satisfies Spec<MediaChannelOptions>,
  dtmfGenerate: { sampleRateHz: rate, durationMs: ms, gapMs: ms, levelDbfs: num(-60, -6) } satisfies Spec<DtmfToneOptions>,
  DtmfDetector: { sampleRateHz: rate } satisfies Spec<DtmfDetectorOptions>,
  // seed is a uint32 in the C++ too: outside it is a bad option there as well.
  Ambience: {
    sampleRateHz: rate, kind: req({ kind: 'enum', values: AMBIENCE_KINDS }), level: req(int(0, 100)),
    seed: int(0, 2 ** 32 - 1, BAD_OPTION),
  } satisfies Spec<AmbienceOptions>,
  Mixer: { gainADb: num(-96, 24), gainBDb: num(-96, 24) } satisfies Spec<MixerOptions>,
} as const;

/**
 * Throws a NativeError unless `o` fits `spec`. Like the C++, every key's type is
 * checked (and unknown keys refused) before any range. An undefined key is missing.
 */
export function checkOptions<T>(what: string, o: T, spec: Spec<T>): T {
  shape(what, o, spec, '');
  ranges(what, o as Record<string, unknown>, spec, '');
  return o;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function fail(code: string, what: string, name: string, why: string): never {
  throw new NativeError(code, `${what}: ${name} ${why}`);
}

function shape(what: string, o: unknown, spec: AnySpec, path: string): void {
  if (!isRecord(o)) fail(BAD_OPTION, what, path ? `option ${path.slice(0, -1)}` : 'options', 'must be an object');
  for (const [k, r] of Object.entries(spec)) {
    const v = o[k], name = `option ${path}${k}`;
    if (v === undefined) {
      if (r.req) fail(BAD_OPTION, what, name, 'is required');
      continue;
    }
    if (r.kind === 'obj') shape(what, v, r.spec, `${path}${k}.`);
    else if (r.kind === 'enum') {
      if (typeof v !== 'string' || !r.values.includes(v)) {
        fail(BAD_OPTION, what, name, `must be one of ${r.values.join(', ')}, got ${show(v)}`);
      }
    } else if (typeof v !== 'number') fail(BAD_OPTION, what, name, `must be a number, got ${show(v)}`);
    else if (!Number.isFinite(v)) fail(BAD_OPTION, what, name, `must be a finite number, got ${v}`);
    else if (r.kind === 'int' && !Number.isInteger(v)) fail(BAD_OPTION, what, name, `must be an integer, got ${v}`);
  }
  for (const k of Object.keys(o)) {
    if (!Object.hasOwn(spec, k)) fail(BAD_OPTION, what, `option ${path}${k}`, `is not known (known: ${Object.keys(spec).join(', ')})`);
  }
}

function ranges(what: string, o: Record<string, unknown>, spec: AnySpec, path: string): void {
  for (const [k, r] of Object.entries(spec)) {
    const v = o[k];
    if (v === undefined || r.kind === 'enum') continue;
    if (r.kind === 'obj') {
      ranges(what, v as Record<string, unknown>, r.spec, `${path}${k}.`);
      continue;
    }
    const n = v as number;  // shape() checked the type
    const x = r.kind === 'num' && r.f32 ? Math.fround(n) : n;
    const open = r.kind === 'num' && r.open;
    const inRange = open ? x > r.min && x < r.max : x >= r.min && x <= r.max;
    const oneOf = r.kind === 'int' ? r.oneOf : undefined;
    if (inRange && (!oneOf || oneOf.includes(x))) continue;
    const want = oneOf ? `one of ${oneOf.join(', ')}` : `${open ? 'strictly between' : 'in'} ${r.min}..${r.max}`;
    fail(r.code, what, `option ${path}${k}`, `must be ${want}, got ${n}`);
  }
}

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return v === null ? 'null' : typeof v;
}
