import type { CallHost } from '../media/call-pipeline.js';
import { ChannelEvents, type MediaChannel, type PcmMessage } from '../audio/native.js';
import { isProviderError, ProviderError } from '../providers/errors.js';
import type { LlmToolCall } from '../providers/types.js';
import type { ControlFrame } from '../contract/control-frames.js';
import type { TranscriptEntry } from '../contract/events.js';
import type { AgentAudio, AgentTurn } from './agent-audio.js';
import { CallBehaviours } from './behaviours.js';
import { CallLine } from './call-line.js';
import type { CallConfig } from './call-config.js';
import { CharBudget } from './char-budget.js';
import { DtmfGatherer } from './dtmf-gatherer.js';
import { DEFAULT_INTERRUPTION, type InterruptionOptions } from './interruption.js';
import { Phrases } from './phrases.js';
import { runToolCall, type ToolRunner } from './tools.js';
import type { TransferRunner } from './transfer-tool.js';

// What a call does the same way whichever engine talks (cascade or realtime): the line (caller
// audio in, agent audio out), DTMF keys, the behaviours' clocks, max_chars_per_min, the
// transcript, the goodbye and the end of the call, and provider failures. The engine decides
// what to say and when, through the CallEngine hooks.

/** The max-duration goodbye ends this long before the limit. */
const GOODBYE_MARGIN_MS = 500;

export type GoodbyeReason = 'idle_timeout' | 'max_duration' | 'voicemail';
export type FinishReason = GoodbyeReason | 'agent_hangup';

export interface CallOptions {
  interruption?: Partial<InterruptionOptions>;
  runTool?: ToolRunner;
  /** transfer_call on phone calls (index.ts: carrierTransferRunner). */
  transfer?: TransferRunner;
  /** The provider refused the account's key mid-call (index.ts: markAccountInvalid). */
  accountInvalid?: (accountId: string, detail: string) => void;
  log?: { warn: (o: object, m: string) => void };
  now?: () => number;
}

/** Caller audio the channel just framed. */
export interface CallerFrames {
  /** At the processing rate; valid until the next chunk (copy what is kept). */
  pcm: Int16Array;
  /** ChannelEvents bits. */
  events: number;
  now: number;
  /** The agent's voice may be in the microphone. */
  agentAudible: boolean;
  /** The echo-aware detector heard the caller over the agent (and barge-in is enabled). */
  bargeIn: boolean;
}

/** The engine's side of a call; the shell calls these. */
export interface CallEngine {
  /** The socket is open and the call's clock runs: greet, connect. */
  begin(): void;
  hear(frames: CallerFrames): void;
  /** The caller's keys, gathered, as the text of a turn. */
  keysPressed(text: string): void;
  turnStarted(turn: AgentTurn): void;
  turnSent(turn: AgentTurn): void;
  deadAir(): void;
  idleWarn(): void;
  /** The call is ending (`ending` is set): say `text`, then `finish(goodbyeReason)`. */
  sayGoodbye(text: string): void;
  /** The call is over: cancel generation, record what the caller heard, close the provider. */
  halt(): void;
}

/** `err` as a ProviderError; anything else is a protocol failure of `provider`. */
export function asProviderError(err: unknown, provider: string, message: string): ProviderError {
  return isProviderError(err) ? err : new ProviderError('protocol', message, { provider, cause: err });
}

export class CallShell {
  readonly line: CallLine;
  readonly channel: MediaChannel;
  readonly audio: AgentAudio;
  readonly behaviours: CallBehaviours;
  readonly interruption: InterruptionOptions;
  readonly now: () => number;
  readonly log: { warn: (o: object, m: string) => void } | null;
  /** Aborted when the call stops: every provider request of the call listens to it. */
  private readonly controller = new AbortController();
  private readonly runTool: ToolRunner | null;
  private readonly transfer: TransferRunner | null;
  private readonly accountInvalid: ((accountId: string, detail: string) => void) | null;
  private readonly dtmf: DtmfGatherer;
  private readonly budget: CharBudget;
  private readonly transcript: TranscriptEntry[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private host: CallHost | null = null;
  private startedAtMs = 0;
  private isStopped = false;
  private isEnding = false;
  private finishing = false;
  private reason: GoodbyeReason = 'max_duration';
  /** Hears every caller frame at the processing rate (voicemail.ts: the beep detector). */
  callerTap: ((pcm: Int16Array, now: number) => void) | null = null;
  /** A machine answered (machineAnswered): no barge-in, nothing more is answered. */
  private machine = false;

  constructor(
    private readonly config: CallConfig,
    opts: CallOptions,
    private readonly engine: CallEngine,
    /** VAD hangover that ends the caller's speech (the cascade's stt.endpointing_ms). */
    vadStopMs?: number,
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.interruption = { ...DEFAULT_INTERRUPTION, ...(opts.interruption ?? {}) };
    this.line = new CallLine(config, {
      interruption: this.interruption,
      vadStopMs,
      events: { turnStarted: (t) => this.turnStarted(t), turnSent: (t) => engine.turnSent(t) },
      leadMs: () => this.host?.leadMs() ?? 0,
      now: this.now,
    });
    this.channel = this.line.channel;
    this.audio = this.line.audio;
    this.dtmf = new DtmfGatherer((digits) => {
      if (!this.isStopped && !this.isEnding) engine.keysPressed(`[The caller pressed the keys: ${digits}]`);
    });
    const agent = config.agent;
    this.budget = new CharBudget(agent.maxCharsPerMin);
    this.behaviours = new CallBehaviours(agent, {
      deadAir: () => engine.deadAir(),
      idleWarn: () => engine.idleWarn(),
      idleHangup: () => this.sayAndEnd(Phrases.idleGoodbye, 'idle_timeout'),
      maxDuration: () => this.sayAndEnd(Phrases.maxDurationGoodbye, 'max_duration'),
    });
    this.runTool = opts.runTool ?? null;
    this.transfer = opts.transfer ?? null;
    this.log = opts.log ?? null;
    this.accountInvalid = opts.accountInvalid ?? null;
  }

  get stopped(): boolean {
    return this.isStopped;
  }

  /** The goodbye is said or being said: nothing else starts. */
  get ending(): boolean {
    return this.isEnding;
  }

  get goodbyeReason(): GoodbyeReason {
    return this.reason;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  // ------------------------------------------------------------------ CallPipeline (ShellPipeline)

  start(host: CallHost): void {
    this.host = host;
    this.startedAtMs = this.now();
    this.engine.begin();
  }

  pushAudio(message: PcmMessage): number {
    return this.line.push(message, this.hearChunk);
  }

  onDtmf(digit: string): void {
    if (this.isStopped || this.isEnding) return;
    this.dtmf.add(digit);
    this.behaviours.busy();
  }

  stop(): TranscriptEntry[] {
    if (!this.isStopped) {
      this.isStopped = true;
      this.controller.abort();
      this.behaviours.stop();
      this.dtmf.stop();
      for (const t of this.timers) clearTimeout(t);
      this.engine.halt();
      this.audio.dropAll();
    }
    return this.transcript;
  }

  private readonly hearChunk = (chunk: PcmMessage): number => {
    const frames = this.channel.process(chunk);
    if (frames === 0 || this.isStopped) return frames;
    const events = this.channel.events;
    const now = this.now();
    const agentAudible = this.line.agentAudible(now);
    this.callerTap?.(this.line.callerPcm(frames), now);
    const bargeIn = (events & ChannelEvents.interruption) !== 0 && agentAudible && this.interruption.enabled && !this.machine;
    this.engine.hear({ pcm: this.line.callerPcm(frames), events, now, agentAudible, bargeIn });
    return frames;
  };

  private turnStarted(turn: AgentTurn): void {
    // A reminder does not reset the idle clock: the hang-up still counts from the caller's silence.
    if (turn.kind !== 'reminder' && turn.kind !== 'goodbye') this.behaviours.busy();
    this.engine.turnStarted(turn);
  }

  // ------------------------------------------------------------------ the host

  send(frame: ControlFrame): void {
    this.host?.sendControl(frame);
  }

  kick(): void {
    this.host?.kick();
  }

  clearPlayback(): void {
    this.host?.clearPlayback();
  }

  /** Milliseconds from the media connect to `at` (now by default). */
  callMs(at = this.now()): number {
    return at - this.startedAtMs;
  }

  /** A timer cleared when the call stops. */
  after(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  // ------------------------------------------------------------------ transcript, budget, tools

  /** What the agent said (heard) from its first frame until now: a transcript entry and frame. `interrupted`: cut by the caller. */
  agentSaid(firstFrameAt: number | null, text: string, interrupted = false): void {
    const start = (firstFrameAt ?? this.now()) - this.startedAtMs;
    this.transcript.push({ role: 'assistant', text, start_ms: Math.round(start), end_ms: Math.round(this.callMs()), ...(interrupted ? { interrupted } : {}) });
    this.send({ type: 'transcript', role: 'assistant', text });
  }

  /** What the caller said, in call milliseconds: a transcript entry and frame. */
  callerSaid(text: string, startMs: number, endMs: number): void {
    this.transcript.push({ role: 'user', text, start_ms: Math.round(startMs), end_ms: Math.round(endMs) });
    this.send({ type: 'transcript', role: 'user', text });
  }

  /** max_chars_per_min: takes `chars` from the sliding minute; false (nothing taken) when they do not fit. */
  takeChars(chars: number): boolean {
    return this.budget.take(chars, this.now());
  }

  /** Tells the client that text went unspoken for max_chars_per_min. */
  overBudget(restOfAnswer: boolean): void {
    const rest = restOfAnswer ? '; the rest of the answer is not spoken' : '';
    this.send({ type: 'error', message: `max_chars_per_min reached: ${this.config.agent.maxCharsPerMin} characters per minute${rest}` });
  }

  /** One of the model's tool calls (not end_call): the tool message. send_dtmf's tones go to `play`. */
  async runToolCall(call: LlmToolCall, signal: AbortSignal, play: (tones: Int16Array[]) => void): Promise<string> {
    const start = this.callMs();
    const transfer = this.transfer && ((args: Record<string, unknown> | null) => this.transfer!(args, this.transferHost(signal)));
    const output = await runToolCall(call, { agent: this.config.agent, runTool: this.runTool, signal, rateHz: this.config.sampleRateOut, play, transfer: transfer ?? undefined });
    // The transcript keeps the call and its result (contract §11, role "tool").
    this.transcript.push({ role: 'tool', text: `${call.name}(${call.arguments}) → ${output}`, start_ms: Math.round(start), end_ms: Math.round(this.callMs()) });
    return output;
  }

  /** What transfer_call needs of this call: its words played, the hand-over ending it `transferred`. */
  private transferHost(signal: AbortSignal) {
    const quiet = () => this.isStopped || (!this.audio.hasSpeech && (this.host?.leadMs() ?? 0) === 0);
    const spoken = async (maxMs: number) => {
      // Quiet for 300 ms running: speech still being synthesised leaves no gap that long.
      for (let waited = 0, calm = 0; calm < 300 && waited < maxMs; waited += 50) {
        await new Promise((r) => setTimeout(r, 50));
        calm = quiet() ? calm + 50 : 0;
      }
    };
    return { signal, spoken, transcript: () => this.transcript, handedOver: () => this.host?.end('completed', 'transferred') };
  }

  // ------------------------------------------------------------------ the end of the call

  /** The max-duration goodbye starts so that, lasting `speakMs`, it ends before the limit. */
  scheduleGoodbye(speakMs: number): void {
    if (this.isStopped) return;
    this.behaviours.start(this.config.maxDurationSeconds * 1000 - speakMs - GOODBYE_MARGIN_MS - this.callMs());
  }

  /** Ends the call `completed` once the last frames (the pacing lead) reached the caller. */
  finish(reason: FinishReason): void {
    if (this.isStopped || this.finishing) return;
    this.finishing = true;
    const lead = this.host?.leadMs() ?? 0;
    this.after(lead, () => this.host?.end('completed', reason));
  }

  /**
   * The caller talked over the goodbye. After an idle hang-up they are evidently back: the
   * hang-up is called off and the conversation goes on. The max-duration limit cannot move:
   * the caller is heard, nothing more is said, and the session ends the call at the limit.
   */
  goodbyeInterrupted(): void {
    if (this.isStopped || this.finishing) return;
    if (this.reason === 'idle_timeout') this.isEnding = false;
  }

  /**
   * Voicemail (voicemail.ts): a machine answered. The conversation stops (the call is ending, so
   * nothing more is answered; the agent's audio is dropped and cleared at the far end) and
   * nothing interrupts what is said from now on.
   */
  machineAnswered(): void {
    if (this.isStopped || this.machine) return;
    this.machine = this.isEnding = true;
    this.reason = 'voicemail';
    this.behaviours.stop();
    this.dtmf.stop();
    this.audio.dropAll();
    this.clearPlayback();
  }

  /** Voicemail: the message is said (as a goodbye), then the call ends `voicemail`. */
  leaveMessage(text: string): void {
    if (this.isStopped || this.finishing) return;
    this.machineAnswered();
    this.engine.sayGoodbye(text);
  }

  /** The agent says goodbye, then the call ends with `reason`. */
  private sayAndEnd(text: string, reason: GoodbyeReason): void {
    if (this.isEnding || this.isStopped) return;
    this.isEnding = true;
    this.reason = reason;
    this.engine.sayGoodbye(text);
  }

  // ------------------------------------------------------------------ provider failures

  /** An `error` frame; the call goes on. */
  reportError(err: ProviderError): void {
    this.send({ type: 'error', message: err.message });
  }

  /** Logs a provider failure of `stage`; a refused key marks the stage's account invalid. */
  noteFailure(e: ProviderError, stage: string, message: string): void {
    this.log?.warn({ session_id: this.config.sessionId, provider: e.provider, kind: e.kind, status: e.status, code: e.code }, message);
    if (!e.invalidatesAccount) return;
    const accountId = this.config.accountIds[stage];
    if (accountId) this.accountInvalid?.(accountId, e.message);
  }

  /** The call cannot go on: an `error` frame, then it ends `failed` / `provider_error`. */
  fail(e: ProviderError): void {
    this.reportError(e);
    this.host?.end('failed', 'provider_error');
  }
}
