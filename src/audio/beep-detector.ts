// Answering-machine beep detector (native/src/core/beep_detector.cc): a steady pure
// tone of 400-1,500 Hz lasting 150 ms-2 s, reported about 60 ms after it ends with
// the time it ended, so a voicemail message can start right after the beep.
// Feed the callee's audio (8 or 16 kHz PCM16, any chunk size; 20 ms frames on a
// call); process() allocates only when it reports a beep.
import type { RawBeepDetector } from './native-addon.js';
import type { Spec } from './native-options.js';
import { nativeInternals } from './native.js';

const { addon, check, build } = nativeInternals;

export interface BeepDetectorOptions {
  /** 8000 or 16000. */
  sampleRateHz: number;
}

/** One detected beep; times are stream times in ms since construction or reset(). */
export interface Beep {
  startMs: number;
  /** When the tone stopped (within about 10 ms). */
  endMs: number;
  frequencyHz: number;
  /** Sine amplitude re full scale. */
  levelDbfs: number;
  /** Stream time of the audio that confirmed it (endMs + about 60 ms). */
  detectedAtMs: number;
}

const spec = {
  sampleRateHz: {
    kind: 'int', min: 8000, max: 16000, oneOf: [8000, 16000], code: 'VC_ERR_NATIVE_UNSUPPORTED_RATE', req: true,
  },
} as const satisfies Spec<BeepDetectorOptions>;

export class BeepDetector {
  private readonly n: RawBeepDetector;
  private readonly info: Float64Array;
  private beep: Beep | null = null;

  constructor(o: BeepDetectorOptions) {
    this.n = build('BeepDetector', o, spec, (v) => new addon.BeepDetector(v));
    this.info = this.n.info;
  }

  /** Feeds samples; returns the beep they confirmed, else null. */
  process(pcm: Int16Array): Beep | null {
    if (check(this.n.process(pcm)) === 0) return null;
    const i = this.info;
    this.beep = { endMs: i[0], startMs: i[1], frequencyHz: i[2], levelDbfs: i[3], detectedAtMs: i[4] };
    return this.beep;
  }

  /** The newest beep since construction or reset(), else null. */
  get lastBeep(): Beep | null { return this.beep; }

  /** Forgets all state; stream time restarts at 0. */
  reset(): void {
    this.n.reset();
    this.beep = null;
  }
}
