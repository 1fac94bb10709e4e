// The line of one simulated call, frame by frame: the agent's audio pushed as the channel's
// reference, what the loudspeaker played coming back through the line's echo path, the line's
// noise and -70 dBFS floor, the caller's speech, and on carrier lines (8 kHz) the μ-law round
// trip both ways. Shared by detector-sweep.ts and call-sim.ts.
import { DEFAULT_INTERRUPTION, nativeBargeIn } from '../../src/conversation/interruption.js';
import { ChannelEvents, MediaChannel, Resampler } from '../../src/audio/native.js';
import { EchoPath, NoiseSource, noiseLoop, type EchoSpec, type NoiseKind } from './eval-audio.js';
import { FLOOR_DBFS, MATERIAL, NOISE_DBFS, type Half } from './eval-set.js';
import { MULAW_DECODE, mulawEncode } from '../media/mulaw.js';

export const FRAME_MS = 20;
export const AGENT_RATE = 16000;

export interface LineSpec { noise?: NoiseKind; echo?: EchoSpec }

/** BENCH_ECHO_CANCELLER_MS: the barge-in detector's echo canceller (off by default, as in the engine). */
const CANCELLER_MS = Number(process.env.BENCH_ECHO_CANCELLER_MS ?? 0);

export class SimLine {
  readonly carrier: boolean;
  /** Samples per 20 ms frame at the line rate. */
  readonly n: number;
  private readonly ch: MediaChannel;
  private readonly down: Resampler;
  private readonly refDown: Resampler;
  private readonly law: Uint8Array;
  private readonly noise: NoiseSource | null;
  private readonly floor: NoiseSource;
  private readonly echo: EchoPath | null;
  private readonly silence = new Int16Array((AGENT_RATE * FRAME_MS) / 1000);

  /**
   * `floorLoop`: the key of the floor's noise loop in `loops`; detector-sweep.ts passes the white
   * line's own (its recorded figures were made that way), call-sim.ts one of its own.
   */
  constructor(rateHz: number, line: LineSpec, seed: number, loops: Map<string, Float32Array>, half: Half, floorLoop = `floor/${rateHz}`) {
    this.carrier = rateHz === 8000;
    this.n = (rateHz * FRAME_MS) / 1000;
    const agentN = (AGENT_RATE * FRAME_MS) / 1000;
    this.ch = new MediaChannel({ inRateHz: rateHz, procRateHz: rateHz, refRateHz: this.carrier ? rateHz : AGENT_RATE, frameMs: FRAME_MS, maxMessageBytes: 4096, bargeIn: { ...nativeBargeIn(DEFAULT_INTERRUPTION), echoCancellerMs: CANCELLER_MS } });
    this.down = new Resampler({ inRateHz: AGENT_RATE, outRateHz: rateHz, maxInputSamples: agentN });
    this.refDown = new Resampler({ inRateHz: AGENT_RATE, outRateHz: rateHz, maxInputSamples: agentN });
    this.law = new Uint8Array(this.n);
    const key = `${line.noise}/${rateHz}`;
    if (line.noise && !loops.has(key)) loops.set(key, noiseLoop(line.noise, rateHz * 20, rateHz, 7, MATERIAL[half].babble));
    if (!loops.has(floorLoop)) loops.set(floorLoop, noiseLoop('white', rateHz * 20, rateHz, 3));
    this.noise = line.noise ? new NoiseSource(loops.get(key)!, NOISE_DBFS, seed) : null;
    this.floor = new NoiseSource(loops.get(floorLoop)!, FLOOR_DBFS, seed + 1);
    this.echo = line.echo ? new EchoPath(line.echo, rateHz, seed) : null;
  }

  /** The carrier's μ-law round trip, in place. */
  private mulaw(pcm: Int16Array): Int16Array {
    mulawEncode(pcm, this.law);
    for (let i = 0; i < this.n; i++) pcm[i] = MULAW_DECODE[this.law[i]];
    return pcm;
  }

  /** An agent frame (16 kHz) as it is sent: the channel's reference, at the line rate. */
  pushReference(frame: Int16Array): void {
    this.ch.pushReference(this.carrier ? (this.refDown.process(frame), Int16Array.from(this.refDown.output.subarray(0, this.n), (v) => Math.round(v))) : frame);
  }

  /**
   * One frame of the microphone: `played` is the agent frame the loudspeaker plays now (null:
   * silence), `caller` adds the caller's samples. True when the channel raised an interruption.
   */
  frame(played: Int16Array | null, caller?: (mic: Float32Array) => void): boolean {
    let out = this.down.process(played ?? this.silence) ? this.down.output.slice(0, this.n) : new Float32Array(this.n);
    if (this.carrier) out = Float32Array.from(this.mulaw(Int16Array.from(out, (v) => Math.round(v))));
    const mic = new Float32Array(this.n);
    this.floor.addTo(mic);
    this.noise?.addTo(mic);
    this.echo?.process(out, mic);
    caller?.(mic);
    const pcm = Int16Array.from(mic, (v) => Math.max(-32768, Math.min(32767, Math.round(v))));
    if (this.carrier) this.mulaw(pcm);
    this.ch.process(new Uint8Array(pcm.buffer));
    return (this.ch.events & ChannelEvents.interruption) !== 0;
  }
}
