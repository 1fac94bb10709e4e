import { Ambience, MediaChannel, type AmbienceKind, type PcmMessage } from '../audio/native.js';
import { AgentAudio, type AgentAudioEvents } from './agent-audio.js';
import type { CallConfig } from './call-config.js';
import { inChunks } from '../audio/input-chunks.js';
import { nativeBargeIn, type InterruptionOptions } from './interruption.js';

/** Caller messages go to the native channel in pieces of at most this many bytes. */
const INPUT_CHUNK_BYTES = 2048;
/** After the agent's last frame, its echo can still reach the microphone for this long. */
const ECHO_TAIL_MS = 400;
/** Longer stalls than this are padded only this much (the reference FIFO holds 2 s). */
const MAX_UNDERRUN_MS = 1000;
const AMBIENCE_KIND: Record<string, AmbienceKind> = { white_noise: 'white', pink_noise: 'pink', brown_noise: 'brown', office_hum: 'office_hum' };

export interface CallLineOptions {
  interruption: InterruptionOptions;
  /** VAD hangover that ends the caller's speech (the cascade's stt.endpointing_ms). */
  vadStopMs?: number;
  events: AgentAudioEvents;
  /** Audio sent ahead of real time now (CallHost.leadMs), 0 before the call starts. */
  leadMs: () => number;
  now: () => number;
}

/**
 * The audio side every conversation pipeline shares: the caller's audio through the native
 * channel (framing, resampling to the processing rate, VAD, echo-aware barge-in), the agent's
 * outgoing audio (with ambience), and the echo reference fed from exactly what is sent.
 */
export class CallLine {
  readonly channel: MediaChannel;
  readonly audio: AgentAudio;
  /** Caller samples per 20 ms frame at the processing rate (8 or 16 kHz). */
  readonly frameSamples: number;
  readonly procRateHz: number;
  private lastAgentFrameMs = -Infinity;

  constructor(private readonly config: CallConfig, private readonly o: CallLineOptions) {
    this.procRateHz = config.sampleRateIn === 8000 ? 8000 : 16000;
    this.channel = new MediaChannel({
      inRateHz: config.sampleRateIn,
      procRateHz: this.procRateHz,
      refRateHz: config.sampleRateOut,
      frameMs: 20,
      maxMessageBytes: INPUT_CHUNK_BYTES,
      ...(o.vadStopMs === undefined ? {} : { vad: { stopMs: o.vadStopMs } }),
      bargeIn: nativeBargeIn(o.interruption),
    });
    this.frameSamples = this.channel.frameSamples;
    const agent = config.agent;
    const ambience =
      agent.ambienceSound && agent.ambienceLevel
        ? new Ambience({ sampleRateHz: config.sampleRateOut, kind: AMBIENCE_KIND[agent.ambienceSound] ?? 'pink', level: agent.ambienceLevel })
        : null;
    this.audio = new AgentAudio(config.sampleRateOut, o.events, ambience);
  }

  /** Feeds a caller message to `chunk` in channel-sized pieces; returns the frames taken in. */
  push(message: PcmMessage, chunk: (piece: PcmMessage) => number): number {
    return inChunks(message, INPUT_CHUNK_BYTES, chunk);
  }

  /** The caller frames the last `channel.process` produced, at the processing rate. */
  callerPcm(frames: number): Int16Array {
    return this.channel.output.subarray(0, frames * this.frameSamples);
  }

  nextFrame(): Uint8Array | null {
    return this.audio.nextFrame();
  }

  /** The frame nextFrame() returned went out: it is now the barge-in detector's reference. */
  frameSent(): void {
    const wasSpeech = this.audio.hasSpeech;
    const frame = this.audio.frameSent(this.o.now());
    this.channel.pushReference(frame);
    if (wasSpeech) this.lastAgentFrameMs = this.o.now();
  }

  /** The far end played `ms` of silence we never sent (VoiceSession: a stall): so does the reference. */
  underrun(ms: number): void {
    const samples = Math.round((Math.min(ms, MAX_UNDERRUN_MS) * this.config.sampleRateOut) / 1000);
    if (samples > 0) this.channel.pushReference(new Int16Array(samples));
  }

  /** The agent's voice may be in the microphone: audio queued, playing, or its echo tail. */
  agentAudible(now: number): boolean {
    if (this.audio.hasSpeech) return true;
    return now < this.lastAgentFrameMs + this.o.leadMs() + ECHO_TAIL_MS;
  }

  /** Output samples sent but not yet played by the far end. */
  leadSamples(): number {
    return Math.round((this.o.leadMs() * this.config.sampleRateOut) / 1000);
  }
}
