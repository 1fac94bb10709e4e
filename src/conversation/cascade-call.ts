import type { CallHost, CallPipeline } from '../media/call-pipeline.js';
import { ChannelEvents, dtmfGenerate, type MediaChannel, type PcmMessage } from '../audio/native.js';
import { isProviderError, ProviderError } from '../providers/errors.js';
import { SentenceSplitter } from '../providers/llm/sentences.js';
import type { LlmMessage, LlmToolCall, SttSession } from '../providers/types.js';
import type { TranscriptEntry } from '../contract/events.js';
import { AgentTurn, type AgentAudio } from './agent-audio.js';
import { CallBehaviours } from './behaviours.js';
import { CallLine } from './call-line.js';
import type { CallConfig } from './call-config.js';
import { CharBudget } from './char-budget.js';
import { DtmfGatherer } from './dtmf-gatherer.js';
import { DEFAULT_INTERRUPTION, type InterruptionOptions } from './interruption.js';
import { isBackchannel, Phrases, wordCount } from './phrases.js';
import { PhraseBook } from './phrase-book.js';
import { TurnSpeaker, type TtsStage } from './speaker.js';
import { DTMF_DIGITS, END_CALL, parseArguments, SEND_DTMF, toolsFor, type ToolRunner } from './tools.js';

// The cascade conversation (spec 1, 2.4; issue "conversation engine"): caller audio → native
// channel (framing, resampling, VAD, echo-aware barge-in) → streaming STT; the caller's turn
// ends on VAD silence (stt.endpointing_ms) plus the STT final; the LLM's tokens are cut into
// sentences and spoken one by one through TTS into AgentAudio, which the session's pacer
// sends. Barge-in drops the agent's audio, cancels generation and keeps in the history only
// what the caller heard.

/** Caller audio kept from before a barge-in is confirmed, so STT hears its first syllables. */
const PREROLL_FRAMES = 40;
/** How long to wait for the STT final once the VAD says the caller stopped. */
const FINAL_WAIT_MS = { streaming: 1500, utterance: 8000 };
/** Model rounds per caller turn (tool calls then answers). */
const MAX_TOOL_ROUNDS = 4;
/** Caller speech before the agent acknowledges a long turn, and the pause that lets it. */
const ACK_AFTER_MS = 5000;
/** Speech recognition sessions opened per call before giving up on a flaky provider. */
const STT_REOPENS = 4;
/** A resumed answer's backchannel may still be transcribed this long after. */
const IGNORE_BACKCHANNEL_MS = 3000;

export interface CascadeOptions {
  interruption?: Partial<InterruptionOptions>;
  runTool?: ToolRunner;
  /** The provider refused the account's key mid-call (index.ts: markAccountInvalid). */
  accountInvalid?: (accountId: string, detail: string) => void;
  log?: { warn: (o: object, m: string) => void };
  now?: () => number;
}

interface UserTurn {
  startMs: number;
  endMs: number;
  finals: string[];
  interim: string;
  vadEnded: boolean;
  finalTimer: NodeJS.Timeout | null;
}

interface Generation {
  controller: AbortController;
  speaker: TurnSpeaker;
  /** Index of this answer's assistant message in the history, once written. */
  historyIndex: number | null;
  /** Text the model produced (may run ahead of what was played). */
  produced: string;
  endCall: boolean;
}

/** A barge-in on hold (backchannel on): the answer is paused until we know what the caller meant. */
interface PendingBargeIn {
  onsetMs: number;
  /** How long the caller spoke, once the VAD says they stopped (back-dated, without its hangover). */
  spokeMs: number | null;
  timer: NodeJS.Timeout;
}

export class CascadeCall implements CallPipeline {
  private host: CallHost | null = null;
  private readonly line: CallLine;
  private readonly channel: MediaChannel;
  private readonly audio: AgentAudio;
  private readonly dtmf: DtmfGatherer;
  private readonly interruption: InterruptionOptions;
  private readonly behaviours: CallBehaviours;
  private readonly budget: CharBudget;
  private readonly phrases: PhraseBook;
  private readonly now: () => number;
  private readonly controller = new AbortController();
  private stt: SttSession | null = null;
  private readonly sttBacklog: Int16Array[] = [];
  private readonly preroll: Int16Array[] = [];
  private readonly history: LlmMessage[];
  private readonly transcript: TranscriptEntry[] = [];
  private startedAtMs = 0;
  private stopped = false;
  private ending = false;

  private userTurn: UserTurn | null = null;
  private generation: Generation | null = null;
  private pending: PendingBargeIn | null = null;
  /** The caller's speech started during the agent's audio and was taken as a barge-in. */
  private bargedIn = false;
  private fillerTurn: AgentTurn | null = null;
  private callerSpeechStartMs: number | null = null;
  private lastAckMs = -Infinity;
  private ignoreBackchannelUntil = -Infinity;
  /** Latency probe for the turn benchmark: turn decided → first answer frame sent. */
  onAnswerLatency: ((ms: number) => void) | null = null;
  private answerDecidedAt = 0;

  constructor(private readonly config: CallConfig, opts: CascadeOptions = {}) {
    this.now = opts.now ?? (() => performance.now());
    this.interruption = { ...DEFAULT_INTERRUPTION, ...(opts.interruption ?? {}) };
    this.line = new CallLine(config, {
      interruption: this.interruption,
      vadStopMs: Math.max(100, Math.min(2000, config.adapters.stt!.endpointingMs)),
      events: { turnStarted: (t) => this.onTurnStarted(t), turnSent: (t) => this.onTurnSent(t) },
      leadMs: () => this.host?.leadMs() ?? 0,
      now: this.now,
    });
    this.channel = this.line.channel;
    this.audio = this.line.audio;
    this.dtmf = new DtmfGatherer((digits) => {
      if (!this.stopped) this.answer(`[The caller pressed the keys: ${digits}]`);
    });
    const agent = config.agent;
    this.budget = new CharBudget(agent.maxCharsPerMin);
    // A phrase that cannot be synthesized: said in an error frame, and fatal only when the provider refuses us.
    this.phrases = new PhraseBook(config, this.controller.signal, (err) => (err.recoverable ? this.recoverable(err) : this.providerFailed(err, 'speech synthesis')));
    this.behaviours = new CallBehaviours(agent, {
      deadAir: () => this.onDeadAir(),
      idleWarn: () => this.onIdleWarn(),
      idleHangup: () => this.sayAndEnd(Phrases.idleGoodbye, 'idle_timeout'),
      maxDuration: () => this.sayAndEnd(Phrases.maxDurationGoodbye, 'max_duration'),
    });
    this.history = [{ role: 'system', content: agent.prompt }];
    // The greeting is synthesized now, while the socket upgrade completes (or comes from the cache).
    if (agent.greeting) void this.phrases.get(agent.greeting);
    this.runTool = opts.runTool ?? null;
    this.log = opts.log ?? null;
    this.accountInvalid = opts.accountInvalid ?? null;
  }

  private readonly accountInvalid: ((accountId: string, detail: string) => void) | null;
  private readonly runTool: ToolRunner | null;
  private readonly log: { warn: (o: object, m: string) => void } | null;

  private get tts(): TtsStage {
    return this.config.adapters.tts!;
  }

  // ------------------------------------------------------------------ CallPipeline

  start(host: CallHost): void {
    this.host = host;
    this.startedAtMs = this.now();
    const greeting = this.config.agent.greeting;
    if (greeting) this.speakPhrase('greeting', greeting);
    else this.behaviours.quiet();
    this.phrases.prepare(this.config.agent);
    this.phrases.durationMs(Phrases.maxDurationGoodbye).then((ms) => {
      // The goodbye starts early enough to finish before the limit cuts the call.
      const at = this.config.maxDurationSeconds * 1000 - (ms ?? 0) - 500 - (this.now() - this.startedAtMs);
      if (!this.stopped) this.behaviours.start(at);
    });
    void this.openStt();
  }

  pushAudio(message: PcmMessage): number {
    return this.line.push(message, this.pushChunk);
  }

  nextFrame(): Uint8Array | null {
    return this.line.nextFrame();
  }

  frameSent(): void {
    this.line.frameSent();
  }

  underrun(ms: number): void {
    this.line.underrun(ms);
  }

  onDtmf(digit: string): void {
    if (this.stopped) return;
    this.dtmf.add(digit);
    this.behaviours.busy();
  }

  stop(): TranscriptEntry[] {
    if (!this.stopped) {
      this.stopped = true;
      this.controller.abort();
      this.behaviours.stop();
      this.generation?.controller.abort();
      this.generation?.speaker.cancel();
      if (this.pending) clearTimeout(this.pending.timer);
      if (this.userTurn?.finalTimer) clearTimeout(this.userTurn.finalTimer);
      this.dtmf.stop();
      // What the caller heard of an answer cut by the hang-up still belongs to the transcript.
      const g = this.generation;
      if (g && g.speaker.turn.sent > 0 && !g.speaker.turn.reported) this.recordAssistant(g.speaker.turn, this.heard(g.speaker.turn));
      this.audio.dropAll();
      this.stt?.close();
    }
    return this.transcript;
  }

  get droppedFrames(): number {
    return this.audio.droppedFrames;
  }

  // ------------------------------------------------------------------ caller audio

  private readonly pushChunk = (chunk: PcmMessage): number => {
    const frames = this.channel.process(chunk);
    if (frames === 0 || this.stopped) return frames;
    const pcm = this.line.callerPcm(frames);
    const events = this.channel.events;
    const now = this.now();
    const agentAudible = this.line.agentAudible(now);

    if (events & ChannelEvents.interruption && agentAudible && this.interruption.enabled) this.onBargeIn(now);

    // The microphone goes to STT unless it only carries the agent's own echo.
    const listening = !agentAudible || this.bargedIn || this.pending !== null;
    if (listening) {
      if (this.preroll.length) this.flushPreroll();
      this.writeStt(pcm.slice());
    } else {
      this.preroll.push(pcm.slice());
      if (this.preroll.length > PREROLL_FRAMES) this.preroll.shift();
    }

    // Speech that began while only the agent's echo was expected is the caller's once the tail is over.
    if (listening && !this.userTurn && (events & ChannelEvents.speechStart || this.channel.vadState === 'speaking')) this.onSpeechStart(now);
    if (events & ChannelEvents.speechEnd && (listening || this.userTurn)) this.onSpeechEnd(now);
    if (this.config.agent.backchannel) this.maybeAcknowledge(now);
    return frames;
  };

  private flushPreroll(): void {
    for (const f of this.preroll) this.writeStt(f);
    this.preroll.length = 0;
  }

  private writeStt(pcm: Int16Array): void {
    if (this.stt) this.stt.write(pcm);
    else if (this.sttBacklog.length < 500) this.sttBacklog.push(pcm);
  }

  private onSpeechStart(now: number): void {
    this.behaviours.busy();
    this.callerSpeechStartMs ??= now;
    if (!this.userTurn) {
      this.userTurn = { startMs: now - this.startedAtMs, endMs: 0, finals: [], interim: '', vadEnded: false, finalTimer: null };
    } else {
      this.userTurn.vadEnded = false;
      if (this.userTurn.finalTimer) clearTimeout(this.userTurn.finalTimer);
      this.userTurn.finalTimer = null;
    }
    // The caller went on before the answer started: the turn is not over, drop that answer.
    const g = this.generation;
    if (g && g.speaker.turn.firstFrameAt === null && !this.pending && g.historyIndex === null) this.cancelGeneration(false);
  }

  private onSpeechEnd(now: number): void {
    this.callerSpeechStartMs = null;
    const turn = this.userTurn;
    if (!turn) return;
    turn.vadEnded = true;
    turn.endMs = now - this.startedAtMs;
    if (this.pending) {
      const { speechStartMs: from, speechEndMs: to } = this.channel;
      this.pending.spokeMs ??= from >= 0 && to >= from ? to - from : now - this.pending.onsetMs;
      this.stt?.commit();
      return;
    }
    // Endpointing: the VAD heard stt.endpointing_ms of silence; the STT final closes the turn.
    this.stt?.commit();
    const wait = this.config.adapters.stt!.adapter.streaming ? FINAL_WAIT_MS.streaming : FINAL_WAIT_MS.utterance;
    if (turn.finalTimer) clearTimeout(turn.finalTimer);
    turn.finalTimer = setTimeout(() => this.endUserTurn(), wait);
  }

  /**
   * Keeps a recognition session open for the whole call. A recoverable failure (the provider
   * dropped the stream, a 5xx) is an `error` frame and a new session, a few times at most.
   */
  private async openStt(): Promise<void> {
    const stage = this.config.adapters.stt!;
    for (let attempt = 0; attempt < STT_REOPENS && !this.stopped; attempt++) {
      try {
        const session = await stage.adapter.open({
          sampleRateHz: this.config.sampleRateIn === 8000 ? 8000 : 16000,
          language: stage.language ?? this.config.agent.language,
          endpointingMs: stage.endpointingMs,
          signal: this.controller.signal,
        });
        if (this.stopped) return session.close();
        this.stt = session;
        for (const f of this.sttBacklog) session.write(f);
        this.sttBacklog.length = 0;
        for await (const ev of session) {
          if (this.stopped) return;
          if (ev.type === 'error') this.recoverable(ev.error);
          else if (ev.type === 'interim') this.onInterim(ev.text);
          else if (ev.type === 'final') this.onFinal(ev.text, ev.speechFinal);
          else if (ev.type === 'utterance_end' && this.userTurn?.vadEnded) this.endUserTurn();
        }
        if (this.stopped) return;
      } catch (err) {
        if (this.stopped) return;
        if (!isProviderError(err) || !err.recoverable) return this.providerFailed(err, 'speech recognition');
        this.recoverable(err);
      }
      this.stt = null;
      await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
    }
    if (!this.stopped) this.providerFailed(new ProviderError('unavailable', 'speech recognition is unavailable', { provider: stage.adapter.provider }), 'speech recognition');
  }

  private onInterim(text: string): void {
    if (this.userTurn) this.userTurn.interim = text;
    if (this.pending) this.judgePending(false);
  }

  private onFinal(text: string, speechFinal: boolean): void {
    const t = text.trim();
    if (!this.userTurn) {
      if (!t) return;
      // The late transcript of a backchannel that did not interrupt is not a turn.
      if (this.now() < this.ignoreBackchannelUntil && isBackchannel(t)) return;
      // A final with no VAD turn (speech the VAD missed): take it as a turn of its own.
      const at = this.now() - this.startedAtMs;
      this.userTurn = { startMs: at, endMs: at, finals: [], interim: '', vadEnded: true, finalTimer: null };
    }
    if (t) this.userTurn.finals.push(t);
    this.userTurn.interim = '';
    if (this.pending) return this.judgePending(true);
    if (this.userTurn.vadEnded && (speechFinal || this.stt !== null)) this.endUserTurn();
  }

  private userText(turn: UserTurn): string {
    return [...turn.finals, turn.interim].join(' ').replace(/\s+/g, ' ').trim();
  }

  /** The caller's turn is over: answer it (or drop it when nothing was understood). */
  private endUserTurn(): void {
    const turn = this.userTurn;
    if (!turn || this.stopped) return;
    if (turn.finalTimer) clearTimeout(turn.finalTimer);
    this.userTurn = null;
    this.bargedIn = false;
    const text = this.userText(turn);
    if (!text) {
      if (!this.generation) this.behaviours.quiet();
      return;
    }
    this.transcript.push({ role: 'user', text, start_ms: Math.round(turn.startMs), end_ms: Math.round(turn.endMs || this.now() - this.startedAtMs) });
    this.host?.sendControl({ type: 'transcript', role: 'user', text });
    this.answer(text);
  }

  // ------------------------------------------------------------------ barge-in

  private onBargeIn(now: number): void {
    const g = this.generation;
    const playing = g && g.speaker.turn.firstFrameAt !== null && !g.speaker.turn.dropped;
    // Fillers, reminders and acknowledgements just stop; only answers are interrupted.
    if (!playing) {
      if (this.fillerTurn) this.audio.dropTurn(this.fillerTurn);
      return;
    }
    if (this.pending || this.bargedIn) return;
    const heard = this.heard(g.speaker.turn);
    this.host?.sendControl({ type: 'interrupted', heard });
    this.behaviours.busy();
    this.onSpeechStart(now);
    const tentative = this.config.agent.backchannel || this.interruption.minWords > 0;
    if (!tentative) return this.confirmBargeIn();
    // Hold the answer (what was still ahead of the caller is kept) and listen.
    this.audio.pause(this.line.leadSamples());
    this.host?.clearPlayback();
    this.pending = { onsetMs: now, spokeMs: null, timer: setTimeout(() => this.judgePending(true), this.interruption.falseInterruptionTimeoutMs) };
  }

  /** Decides a held barge-in: a short backchannel resumes the answer, anything else stands. */
  private judgePending(final: boolean): void {
    const p = this.pending;
    if (!p) return;
    const text = this.userTurn ? this.userText(this.userTurn) : '';
    const now = this.now();
    const spokeMs = p.spokeMs ?? now - p.onsetMs;
    const words = wordCount(text);
    if (this.interruption.minWords > 0 && words >= this.interruption.minWords && !isBackchannel(text)) return this.confirmBargeIn();
    if (spokeMs > this.interruption.backchannelMaxMs || (text && !isBackchannel(text))) return this.confirmBargeIn();
    const timedOut = now - p.onsetMs >= this.interruption.falseInterruptionTimeoutMs - 5;
    if (!final && !timedOut) return;
    if (p.spokeMs === null && !timedOut) return;
    if (!this.config.agent.backchannel && this.interruption.minWords > 0 && timedOut && p.spokeMs === null) return this.confirmBargeIn();
    // False interruption: the caller only acknowledged. Resume where the answer stopped.
    clearTimeout(p.timer);
    this.pending = null;
    if (this.userTurn?.finalTimer) clearTimeout(this.userTurn.finalTimer);
    this.userTurn = null;
    this.ignoreBackchannelUntil = now + IGNORE_BACKCHANNEL_MS;
    this.audio.resume();
    this.host?.kick();
  }

  private confirmBargeIn(): void {
    if (this.pending) {
      clearTimeout(this.pending.timer);
      this.pending = null;
    }
    this.bargedIn = true;
    this.cancelGeneration(true);
  }

  /** Stops the current answer; `interrupted` keeps in the history what the caller heard. */
  private cancelGeneration(interrupted: boolean): void {
    const g = this.generation;
    if (!g) return;
    this.generation = null;
    g.controller.abort();
    g.speaker.cancel();
    const turn = g.speaker.turn;
    const heard = interrupted ? this.heard(turn) : '';
    this.audio.dropAll();
    this.host?.clearPlayback();
    if (interrupted) {
      this.truncateHistory(g, heard);
      if (heard) this.recordAssistant(turn, heard);
    } else if (g.historyIndex !== null) {
      this.history.splice(g.historyIndex);
    }
  }

  private truncateHistory(g: Generation, heard: string): void {
    if (g.historyIndex === null) {
      this.history.push({ role: 'assistant', content: heard || null });
      return;
    }
    // Keep tool calls and results, but the spoken words are only what was heard.
    const msg = this.history[g.historyIndex];
    if (msg.role === 'assistant') this.history[g.historyIndex] = { ...msg, content: heard || null };
    for (let i = this.history.length - 1; i > g.historyIndex; i--) {
      const m = this.history[i];
      if (m.role === 'assistant' && !m.toolCalls?.length) this.history.splice(i, 1);
    }
  }

  private heard(turn: AgentTurn): string {
    return turn.heardText(this.line.leadSamples());
  }

  // ------------------------------------------------------------------ answers

  private answer(userText: string): void {
    if (this.ending) return;
    this.cancelGeneration(false);
    this.history.push({ role: 'user', content: userText });
    const agentTurn = new AgentTurn('answer');
    const controller = new AbortController();
    const speaker = new TurnSpeaker(this.tts, this.audio, agentTurn, this.speakerHooks());
    const g: Generation = { controller, speaker, historyIndex: null, produced: '', endCall: false };
    this.generation = g;
    this.answerDecidedAt = this.now();
    this.behaviours.awaitingAnswer();
    void this.generate(g);
  }

  private async generate(g: Generation): Promise<void> {
    const llm = this.config.adapters.llm!;
    const tools = toolsFor(this.config.agent);
    try {
      for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
        const splitter = new SentenceSplitter({ minChars: 2 });
        let text = '';
        const calls: LlmToolCall[] = [];
        for await (const ev of llm.adapter.stream({ messages: this.history, tools, temperature: llm.temperature, maxTokens: llm.maxTokens, signal: g.controller.signal })) {
          if (g.controller.signal.aborted) return;
          if (ev.type === 'text') {
            text += ev.text;
            for (const s of splitter.push(ev.text)) g.speaker.say(s);
          } else if (ev.type === 'tool_call') calls.push(ev.call);
        }
        const rest = splitter.flush();
        if (rest) g.speaker.say(rest);
        if (g.controller.signal.aborted) return;
        g.produced += (g.produced && text ? ' ' : '') + text;
        g.historyIndex ??= this.history.length;
        this.history.push({ role: 'assistant', content: text || null, toolCalls: calls.length ? calls : undefined });
        if (calls.length === 0) break;
        for (const call of calls) {
          const output = await this.runToolCall(g, call);
          if (g.controller.signal.aborted) return;
          this.history.push({ role: 'tool', toolCallId: call.id, content: output });
        }
        if (g.endCall) break;
      }
    } catch (err) {
      if (g.controller.signal.aborted || this.stopped) return;
      this.providerFailed(err, 'language model');
    } finally {
      if (this.generation === g) g.speaker.end();
    }
  }

  private async runToolCall(g: Generation, call: LlmToolCall): Promise<string> {
    const args = parseArguments(call.arguments);
    if (call.name === END_CALL) {
      g.endCall = true;
      return JSON.stringify({ result: 'the call will end after your last words' });
    }
    if (call.name === SEND_DTMF && this.config.agent.canSendDtmf) {
      const digits = typeof args?.digits === 'string' ? args.digits : '';
      if (!DTMF_DIGITS.test(digits)) return JSON.stringify({ error: 'digits must be 1-32 of 0-9, *, #, A-D' });
      for (const d of digits) g.speaker.play(dtmfGenerate(d.toUpperCase(), { sampleRateHz: this.config.sampleRateOut }));
      return JSON.stringify({ result: `pressed ${digits}` });
    }
    if (!this.config.agent.tools.some((t) => t.name === call.name)) return JSON.stringify({ error: `unknown tool ${call.name}` });
    if (!this.runTool || !this.config.agent.toolWebhookUrl) return JSON.stringify({ error: 'the tool is not available' });
    if (args === null) return JSON.stringify({ error: 'arguments must be a JSON object' });
    const res = await this.runTool(call.name, args, g.controller.signal);
    return JSON.stringify(res.ok ? { result: res.result } : { error: `the tool failed: ${res.error}` });
  }

  private speakerHooks() {
    return {
      kick: () => this.host?.kick(),
      allow: (text: string) => {
        if (this.budget.take(text.length, this.now())) return true;
        this.host?.sendControl({ type: 'error', message: `max_chars_per_min reached: ${this.config.agent.maxCharsPerMin} characters per minute; the rest of the answer is not spoken` });
        return false;
      },
      failed: (err: ProviderError) => this.providerFailed(err, 'speech synthesis'),
    };
  }

  // ------------------------------------------------------------------ agent turns

  private onTurnStarted(turn: AgentTurn): void {
    // A reminder does not reset the idle clock: the hang-up still counts from the caller's silence.
    if (turn.kind !== 'reminder' && turn.kind !== 'goodbye') this.behaviours.busy();
    if (turn.kind === 'answer') {
      this.behaviours.answerStarted();
      if (this.fillerTurn && this.fillerTurn !== turn) this.fillerTurn = null;
      if (this.onAnswerLatency && this.generation?.speaker.turn === turn) this.onAnswerLatency(this.now() - this.answerDecidedAt);
    }
  }

  private onTurnSent(turn: AgentTurn): void {
    // Acknowledgements are not utterances; a filler is one, but not a turn of its own.
    if (turn.kind === 'acknowledgement' || turn.kind === 'dtmf') return;
    if (turn.kind === 'filler') {
      if (turn === this.fillerTurn) this.fillerTurn = null;
      return this.recordAssistant(turn, turn.text);
    }
    this.recordAssistant(turn, turn.text);
    // A turn that produced no audio at all (the model failed before speaking) is no turn.
    if (turn.queued > 0) this.host?.sendControl({ type: 'turn_complete' });
    const g = this.generation;
    if (g && g.speaker.turn === turn) {
      this.generation = null;
      if (g.endCall) return this.finish('agent_hangup');
    }
    if (turn.kind === 'goodbye' || turn.kind === 'reminder') return;
    if (!this.generation && !this.userTurn) this.behaviours.quiet();
  }

  private recordAssistant(turn: AgentTurn, text: string): void {
    if (!text) return;
    const start = (turn.firstFrameAt ?? this.now()) - this.startedAtMs;
    this.transcript.push({ role: 'assistant', text, start_ms: Math.round(start), end_ms: Math.round(this.now() - this.startedAtMs) });
    this.host?.sendControl({ type: 'transcript', role: 'assistant', text });
    turn.reported = true;
  }

  /** Speaks a fixed phrase as its own turn (greeting, reminder, goodbye, filler). */
  private speakPhrase(kind: AgentTurn['kind'], text: string): AgentTurn {
    const turn = new AgentTurn(kind);
    void this.phrases.get(text).then((pcm) => {
      if (this.stopped || turn.dropped) return;
      if (!pcm) {
        this.audio.finish(turn);
        if (kind === 'goodbye') this.finish(this.goodbyeReason ?? 'agent_hangup');
        return;
      }
      if (!this.budget.take(text.length, this.now()) && kind !== 'goodbye') {
        this.host?.sendControl({ type: 'error', message: `max_chars_per_min reached: ${this.config.agent.maxCharsPerMin} characters per minute` });
        return;
      }
      this.audio.append(turn, pcm, text);
      this.audio.finish(turn);
      this.host?.kick();
    });
    if (kind === 'greeting' || kind === 'reminder') {
      // What the agent says on its own is part of the conversation the model sees.
      this.history.push({ role: 'assistant', content: text });
    }
    return turn;
  }

  private onDeadAir(): void {
    const g = this.generation;
    if (!g || g.speaker.turn.firstFrameAt !== null || g.speaker.turn.queued > 0 || this.fillerTurn) return;
    this.fillerTurn = this.speakPhrase('filler', Phrases.filler);
  }

  private onIdleWarn(): void {
    if (this.generation || this.userTurn || this.ending) return;
    this.behaviours.warned();
    this.speakPhrase('reminder', Phrases.idleReminder);
  }

  private maybeAcknowledge(now: number): void {
    const start = this.callerSpeechStartMs;
    if (start === null || this.generation || this.audio.hasSpeech || this.pending) return;
    if (now - start < ACK_AFTER_MS || now - this.lastAckMs < ACK_AFTER_MS) return;
    if (this.channel.vadState !== 'stopping') return;
    this.lastAckMs = now;
    this.speakPhrase('acknowledgement', Phrases.acknowledgement);
  }

  private goodbyeReason: 'idle_timeout' | 'max_duration' | 'agent_hangup' | null = null;

  /** The agent says goodbye, then the call ends with `reason`. */
  private sayAndEnd(text: string, reason: 'idle_timeout' | 'max_duration'): void {
    if (this.ending || this.stopped) return;
    this.ending = true;
    this.goodbyeReason = reason;
    if (this.pending) clearTimeout(this.pending.timer);
    this.pending = null;
    this.cancelGeneration(this.generation?.speaker.turn.firstFrameAt != null);
    const turn = this.speakPhrase('goodbye', text);
    const finishWhenSent = () => {
      if (turn.reported || turn.dropped) this.finish(reason);
      else setTimeout(finishWhenSent, 50);
    };
    finishWhenSent();
  }

  private finish(reason: 'idle_timeout' | 'max_duration' | 'agent_hangup'): void {
    if (this.stopped) return;
    // Let the last frames (the pacing lead) reach the caller before the close.
    const lead = this.host?.leadMs() ?? 0;
    setTimeout(() => this.host?.end('completed', reason), lead);
  }

  // ------------------------------------------------------------------ provider failures

  private recoverable(err: ProviderError): void {
    this.host?.sendControl({ type: 'error', message: err.message });
  }

  /** Recoverable: an `error` frame and the call goes on; otherwise the call ends `provider_error`. */
  private providerFailed(err: unknown, what: string): void {
    if (this.stopped) return;
    const e = isProviderError(err) ? err : new ProviderError('protocol', `${what} failed`, { provider: 'unknown', cause: err });
    if (e.kind === 'aborted') return;
    this.log?.warn({ session_id: this.config.sessionId, provider: e.provider, kind: e.kind, status: e.status, code: e.code }, `${what} failed`);
    if (e.invalidatesAccount) {
      const stage = what === 'speech recognition' ? 'stt' : what === 'language model' ? 'llm' : 'tts';
      const accountId = this.config.accountIds[stage];
      if (accountId) this.accountInvalid?.(accountId, e.message);
    }
    if (e.recoverable && what !== 'speech recognition') {
      this.recoverable(e);
      if (this.generation) {
        const g = this.generation;
        g.controller.abort();
        g.speaker.end();
      }
      return;
    }
    this.stopped || this.host?.sendControl({ type: 'error', message: e.message });
    this.host?.end('failed', 'provider_error');
  }
}
