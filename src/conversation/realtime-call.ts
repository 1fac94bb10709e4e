import type { CallHost, CallPipeline } from '../media/call-pipeline.js';
import { ChannelEvents, dtmfGenerate, type MediaChannel, type PcmMessage } from '../audio/native.js';
import { isProviderError, ProviderError } from '../providers/errors.js';
import type { LlmToolCall, RealtimeEvent, RealtimeSession, RealtimeSessionConfig, RealtimeTurnDetection } from '../providers/types.js';
import type { TranscriptEntry } from '../contract/events.js';
import { AgentTurn, type AgentAudio, type TurnKind } from './agent-audio.js';
import { CallBehaviours } from './behaviours.js';
import { CallLine } from './call-line.js';
import type { CallConfig } from './call-config.js';
import { CharBudget } from './char-budget.js';
import { DtmfGatherer } from './dtmf-gatherer.js';
import { DEFAULT_INTERRUPTION, type InterruptionOptions } from './interruption.js';
import { Phrases } from './phrases.js';
import { HeardText } from './realtime-heard.js';
import { RateConverter } from './speaker.js';
import { DTMF_DIGITS, END_CALL, parseArguments, SEND_DTMF, toolsFor, type ToolRunner } from './tools.js';

// The realtime conversation (spec 2.4 `pipeline_mode: realtime`; docs/realtime.md): one
// speech-to-speech session (OpenAI Realtime, GA protocol) replaces STT + LLM + TTS.
//
// Caller audio goes through the native channel (framing, resampling to 16/8 kHz, VAD and
// echo-aware barge-in against the agent's audio as reference), then up to 24 kHz for the
// provider. Turn-taking is the provider's server VAD (create_response, interrupt_response),
// but the provider only hears the caller: while the agent's voice may be in the microphone
// (audio queued or playing, plus its echo tail) we send silence in place of the microphone,
// and our echo-aware detector decides barge-in. On barge-in the audio kept from just before it
// (the preroll) goes up first, so the provider hears the caller's first syllables.
//
// The response's audio (24 kHz) is resampled to sample_rate_out into AgentAudio, which the
// session's pacer sends; its transcript deltas are aligned with the audio (HeardText) so that
// on barge-in we know what the caller heard: `interrupted {heard}`, the queued audio dropped,
// `response.cancel`, and `conversation.item.truncate` at the milliseconds actually played, so
// the model's own memory of its answer is what the caller heard.

/** Caller audio kept while the microphone is withheld, sent on barge-in. */
const PREROLL_MS = 400;
/** Caller audio kept while the session connects (sent once it is open). */
const BACKLOG_MS = 3000;
/** Tries to open the realtime session when the provider answers 429/5xx or times out. */
const CONNECT_TRIES = 3;
/** A response we asked for that never started is given up after this long. */
const REQUEST_TIMEOUT_MS = 10_000;
/** The goodbye's own response may fail: the call ends after this long regardless. */
const GOODBYE_TIMEOUT_MS = 15_000;
/** Rough speaking rate, to start the max-duration goodbye early enough. */
const MS_PER_CHAR = 75;
/** The model's time to first audio, also counted before the max-duration goodbye. */
const RESPONSE_LATENCY_MS = 1500;
export const DEFAULT_INPUT_TRANSCRIPTION_MODEL = 'gpt-4o-mini-transcribe';
const REALTIME_RATE_HZ = 24000;
const META_PURPOSE = 'vas_purpose';
const META_REQUEST = 'vas_request';

type Purpose = 'greeting' | 'answer' | 'filler' | 'reminder' | 'goodbye';
const PURPOSES = new Set<string>(['greeting', 'answer', 'filler', 'reminder', 'goodbye']);
const TURN_KIND: Record<Purpose, TurnKind> = { greeting: 'greeting', answer: 'answer', filler: 'filler', reminder: 'reminder', goodbye: 'goodbye' };

export interface RealtimeCallOptions {
  interruption?: Partial<InterruptionOptions>;
  runTool?: ToolRunner;
  log?: { warn: (o: object, m: string) => void };
  now?: () => number;
  /** The provider refused the account's key mid-call (index.ts: markAccountInvalid). */
  accountInvalid?: (accountId: string, detail: string) => void;
  /** Transcription model for the caller's words (default gpt-4o-mini-transcribe). */
  inputTranscriptionModel?: string;
  /** Overrides of the server VAD settings. */
  turnDetection?: Partial<RealtimeTurnDetection>;
}

interface Request {
  purpose: Purpose;
  instructions?: string;
  seq: number;
  eventId: string | null;
  timer: NodeJS.Timeout | null;
}

/** One provider response and the agent turn that plays it. */
interface Response {
  id: string;
  purpose: Purpose;
  turn: AgentTurn | null;
  /** 24 kHz → sample_rate_out, made with the first audio. */
  conv: RateConverter | null;
  heard: HeardText;
  /** transcript_done's text, when it came. */
  finalText: string | null;
  /** The audio items of the response and where each starts in the turn (output samples). */
  items: { itemId: string; contentIndex: number; start: number }[];
  calls: LlmToolCall[];
  done: boolean;
  /** Cut by the caller or the end of the call: its later events are ignored. */
  cut: boolean;
  /** max_chars_per_min was reached: the rest of its audio is not played. */
  silenced: boolean;
  endCall: boolean;
  reported: boolean;
}

export class RealtimeCall implements CallPipeline {
  private host: CallHost | null = null;
  private readonly line: CallLine;
  private readonly channel: MediaChannel;
  private readonly audio: AgentAudio;
  private readonly dtmf: DtmfGatherer;
  private readonly interruption: InterruptionOptions;
  private readonly behaviours: CallBehaviours;
  private readonly budget: CharBudget;
  private readonly now: () => number;
  private readonly procRate: number;
  private readonly toProvider: RateConverter;
  private readonly controller = new AbortController();
  private readonly transcript: TranscriptEntry[] = [];
  private readonly runTool: ToolRunner | null;
  private readonly log: { warn: (o: object, m: string) => void } | null;
  private session: RealtimeSession | null = null;
  private startedAtMs = 0;
  private stopped = false;
  private failed = false;
  private ending = false;
  private finishing = false;
  private goodbyeReason: 'idle_timeout' | 'max_duration' = 'max_duration';

  /** Caller audio at 24 kHz waiting for the session to open. */
  private readonly backlog: Int16Array[] = [];
  private backlogSamples = 0;
  /** Microphone frames (procRate) withheld while the agent was audible. */
  private readonly preroll: Int16Array[] = [];
  private prerollSamples = 0;
  private withheld = false;
  private bargedIn = false;
  /**
   * Until the greeting has been generated the microphone is withheld too: a caller's "hello?"
   * would otherwise make the server's VAD cancel the greeting (interrupt_response) or answer
   * before it. What the caller says meanwhile goes up (from the preroll) once it is over.
   */
  private greetingHold: boolean;

  private readonly responses = new Map<string, Response>();
  /** Responses whose audio is queued or playing, oldest first. */
  private outstanding: Response[] = [];
  /** The response the provider is generating. */
  private active: Response | null = null;
  /** A response.create sent whose response has not started. */
  private requested: Request | null = null;
  private readonly queue: Request[] = [];
  private requestSeq = 0;
  private toolsRunning = 0;
  /** Caller speech the provider detected: start per input item, for the transcript. */
  private readonly userSpeech = new Map<string, { startMs: number; endMs: number | null }>();
  private callerSpeaking = false;
  private speechSeq = 0;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly config: CallConfig, private readonly opts: RealtimeCallOptions = {}) {
    if (!config.adapters.realtime) throw new Error('realtime pipeline needs a realtime stage');
    this.now = opts.now ?? (() => performance.now());
    this.interruption = { ...DEFAULT_INTERRUPTION, ...(opts.interruption ?? {}) };
    this.line = new CallLine(config, {
      interruption: this.interruption,
      events: { turnStarted: (t) => this.onTurnStarted(t), turnSent: (t) => this.onTurnSent(t) },
      leadMs: () => this.host?.leadMs() ?? 0,
      now: this.now,
    });
    this.channel = this.line.channel;
    this.audio = this.line.audio;
    this.procRate = this.line.procRateHz;
    this.toProvider = new RateConverter(this.procRate, REALTIME_RATE_HZ);
    this.dtmf = new DtmfGatherer((digits) => {
      if (this.stopped || this.ending || !this.session) return;
      this.session.sendUserText(`[The caller pressed the keys: ${digits}]`);
      this.request('answer');
    });
    const agent = config.agent;
    this.budget = new CharBudget(agent.maxCharsPerMin);
    this.behaviours = new CallBehaviours(agent, {
      deadAir: () => this.onDeadAir(),
      idleWarn: () => this.onIdleWarn(),
      idleHangup: () => this.sayAndEnd(Phrases.idleGoodbye, 'idle_timeout'),
      maxDuration: () => this.sayAndEnd(Phrases.maxDurationGoodbye, 'max_duration'),
    });
    this.runTool = opts.runTool ?? null;
    this.log = opts.log ?? null;
    this.greetingHold = Boolean(agent.greeting);
  }

  /** What the session is opened with (session.update). */
  sessionConfig(): RealtimeSessionConfig {
    const agent = this.config.agent;
    return {
      instructions: agent.prompt,
      voice: this.config.adapters.realtime!.voice,
      turnDetection: { type: 'server_vad', prefixPaddingMs: 300, silenceDurationMs: 500, createResponse: true, interruptResponse: true, ...(this.opts.turnDetection ?? {}) },
      tools: toolsFor(agent),
      inputTranscriptionModel: this.opts.inputTranscriptionModel ?? DEFAULT_INPUT_TRANSCRIPTION_MODEL,
      inputTranscriptionLanguage: agent.language,
    };
  }

  // ------------------------------------------------------------------ CallPipeline

  start(host: CallHost): void {
    this.host = host;
    this.startedAtMs = this.now();
    const goodbyeMs = Phrases.maxDurationGoodbye.length * MS_PER_CHAR + RESPONSE_LATENCY_MS + 500;
    this.behaviours.start(this.config.maxDurationSeconds * 1000 - goodbyeMs);
    void this.run();
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
    if (this.stopped || this.ending) return;
    this.dtmf.add(digit);
    this.behaviours.busy();
  }

  stop(): TranscriptEntry[] {
    if (!this.stopped) {
      this.stopped = true;
      this.controller.abort();
      this.behaviours.stop();
      this.dtmf.stop();
      for (const t of this.timers) clearTimeout(t);
      if (this.requested?.timer) clearTimeout(this.requested.timer);
      // What the caller heard of an answer cut by the hang-up still belongs to the transcript.
      const lead = this.line.leadSamples();
      for (const r of this.outstanding) {
        if (r.turn && r.turn.sent > 0 && !r.reported) this.recordAssistant(r, r.heard.heardAt(Math.max(0, r.turn.sent - lead)));
      }
      this.outstanding = [];
      this.audio.dropAll();
      this.session?.close();
    }
    return this.transcript.sort((a, b) => a.start_ms - b.start_ms);
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
    const audible = this.line.agentAudible(now);

    if (events & ChannelEvents.interruption && audible && this.interruption.enabled && !this.ending) this.onBargeIn('detector');

    // The provider hears the caller, never the agent's own echo: while the agent may be in the
    // microphone (and no barge-in), silence goes up in its place and the microphone is kept.
    const listening = !this.ending && !this.greetingHold && (!audible || this.bargedIn);
    if (listening) {
      if (this.withheld) {
        this.withheld = false;
        // Speech that began in the echo tail is the caller's: its start goes up too.
        if (this.channel.vadState === 'speaking' || this.channel.vadState === 'starting') this.flushPreroll();
        else this.clearPreroll();
      }
      this.sendCaller(pcm);
      if (events & ChannelEvents.speechStart) this.behaviours.busy();
    } else {
      this.withheld = true;
      this.keepPreroll(pcm);
      this.sendCaller(new Int16Array(pcm.length));
    }
    return frames;
  };

  private keepPreroll(pcm: Int16Array): void {
    this.preroll.push(pcm.slice());
    this.prerollSamples += pcm.length;
    const max = (this.procRate * PREROLL_MS) / 1000;
    while (this.preroll.length > 1 && this.prerollSamples - this.preroll[0].length >= max) this.prerollSamples -= this.preroll.shift()!.length;
  }

  private flushPreroll(): void {
    for (const p of this.preroll) this.sendCaller(p);
    this.clearPreroll();
  }

  private clearPreroll(): void {
    this.preroll.length = 0;
    this.prerollSamples = 0;
  }

  /** Caller audio (procRate) up to the provider at 24 kHz. */
  private sendCaller(pcm: Int16Array): void {
    const up = this.toProvider.convert(pcm);
    if (up.length === 0) return;
    if (this.session) {
      this.session.appendAudio(up);
      return;
    }
    this.backlog.push(up.slice());
    this.backlogSamples += up.length;
    const max = (REALTIME_RATE_HZ * BACKLOG_MS) / 1000;
    while (this.backlog.length > 1 && this.backlogSamples > max) this.backlogSamples -= this.backlog.shift()!.length;
  }

  // ------------------------------------------------------------------ the provider session

  private async run(): Promise<void> {
    const stage = this.config.adapters.realtime!;
    let session: RealtimeSession | null = null;
    for (let attempt = 1; !session; attempt++) {
      try {
        session = await stage.adapter.connect({ session: this.sessionConfig(), signal: this.controller.signal });
      } catch (err) {
        if (this.stopped) return;
        if (isProviderError(err) && err.recoverable && attempt < CONNECT_TRIES) {
          this.recoverable(err);
          await this.sleep(500 * attempt);
          if (this.stopped) return;
          continue;
        }
        return this.fatal(err);
      }
    }
    if (this.stopped) return session.close();
    this.session = session;
    for (const b of this.backlog) session.appendAudio(b);
    this.backlog.length = 0;
    this.backlogSamples = 0;
    const greeting = this.config.agent.greeting;
    if (greeting) this.request('greeting', sayExactly(greeting));
    else this.behaviours.quiet();
    try {
      for await (const ev of session) {
        if (this.stopped) return;
        this.onEvent(ev);
      }
      if (!this.stopped) this.fatal(new ProviderError('unavailable', `${stage.adapter.provider} realtime session ended`, { provider: stage.adapter.provider }));
    } catch (err) {
      if (!this.stopped) this.fatal(err);
    }
  }

  private onEvent(ev: RealtimeEvent): void {
    switch (ev.type) {
      case 'response_created':
        this.onResponseCreated(ev.responseId, ev.metadata);
        return;
      case 'audio':
        return this.onAudio(ev);
      case 'transcript_delta': {
        const r = this.responses.get(ev.responseId);
        if (!r || r.cut) return;
        r.heard.addText(ev.text);
        if (!r.silenced && r.purpose !== 'goodbye' && !this.budget.take(ev.text.length, this.now())) this.silence(r);
        return;
      }
      case 'transcript_done': {
        const r = this.responses.get(ev.responseId);
        if (r) r.finalText = ev.text.trim();
        return;
      }
      case 'tool_call': {
        const r = this.responses.get(ev.responseId) ?? this.onResponseCreated(ev.responseId, null);
        if (r && !r.cut) r.calls.push(ev.call);
        return;
      }
      case 'response_done':
        return this.onResponseDone(ev);
      case 'speech_started':
        return this.onSpeechStarted(ev.itemId);
      case 'speech_stopped': {
        const s = this.userSpeech.get(ev.itemId);
        if (s) s.endMs = this.callMs();
        this.callerSpeaking = false;
        this.bargedIn = false;
        // The server answers on its own (create_response): the answer must start within dead_air_seconds.
        if (!this.ending) this.behaviours.awaitingAnswer();
        return;
      }
      case 'input_transcript':
        return this.onInputTranscript(ev.itemId, ev.text);
      case 'error':
        return this.onProviderError(ev.error, ev.clientEventId);
      case 'session_updated':
        return;
    }
  }

  private newResponse(id: string, purpose: Purpose): Response {
    const r: Response = {
      id,
      purpose,
      turn: null,
      conv: null,
      heard: new HeardText(),
      finalText: null,
      items: [],
      calls: [],
      done: false,
      cut: false,
      silenced: false,
      endCall: false,
      reported: false,
    };
    this.responses.set(id, r);
    return r;
  }

  private onResponseCreated(id: string, metadata: Record<string, string> | null): Response {
    const existing = this.responses.get(id);
    if (existing) return existing;
    const asked = metadata?.[META_PURPOSE];
    const purpose: Purpose = asked && PURPOSES.has(asked) ? (asked as Purpose) : 'answer';
    const req = this.requested;
    if (req && metadata?.[META_REQUEST] === String(req.seq)) {
      if (req.timer) clearTimeout(req.timer);
      this.requested = null;
    }
    const r = this.newResponse(id, purpose);
    this.active = r;
    // Once the call is ending, only the goodbye is spoken (a caller turn may still start a response).
    if (this.ending && purpose !== 'goodbye') {
      r.cut = true;
      this.session?.cancel();
    }
    return r;
  }

  private onAudio(ev: Extract<RealtimeEvent, { type: 'audio' }>): void {
    const r = this.responses.get(ev.responseId) ?? this.onResponseCreated(ev.responseId, null);
    if (r.cut || r.silenced || this.stopped) return;
    if (!r.turn) {
      r.turn = new AgentTurn(TURN_KIND[r.purpose]);
      this.outstanding.push(r);
      // A new answer is playing: the caller's barge-in (if any) is over.
      this.bargedIn = false;
    }
    const last = r.items[r.items.length - 1];
    if (!last || last.itemId !== ev.itemId || last.contentIndex !== ev.contentIndex) r.items.push({ itemId: ev.itemId, contentIndex: ev.contentIndex, start: r.heard.queuedSamples });
    r.conv ??= new RateConverter(REALTIME_RATE_HZ, this.config.sampleRateOut);
    const out = r.conv.convert(ev.pcm);
    if (out.length === 0) return;
    r.heard.addAudio(out.length);
    this.audio.append(r.turn, out.slice());
    this.host?.kick();
  }

  private onResponseDone(ev: Extract<RealtimeEvent, { type: 'response_done' }>): void {
    const r = this.responses.get(ev.responseId) ?? this.onResponseCreated(ev.responseId, ev.metadata ?? null);
    r.done = true;
    if (this.active === r) this.active = null;
    if (r.purpose === 'greeting') this.greetingHold = false;
    if (ev.status === 'failed' && !r.cut) {
      const code = ev.errorCode ? ` (${ev.errorCode})` : '';
      this.log?.warn({ session_id: this.config.sessionId, code: ev.errorCode }, 'realtime response failed');
      this.host?.sendControl({ type: 'error', message: `${this.provider} could not finish the answer${code}` });
    }
    // Nothing more comes for it: forget it once its audio (if any) is played or dropped.
    if (!r.turn || r.cut || r.reported) this.responses.delete(r.id);
    if (r.turn && !r.cut) {
      // The resampler keeps a few samples of its filter: push them out with a little silence.
      const tail = r.conv!.convert(new Int16Array(REALTIME_RATE_HZ / 100));
      if (tail.length && !r.silenced) {
        r.heard.addAudio(tail.length);
        this.audio.append(r.turn, tail.slice());
      }
      this.audio.finish(r.turn);
      this.host?.kick();
    }
    if (!r.cut && ev.status === 'completed' && r.calls.length) void this.runTools(r);
    else if (!r.turn || r.cut) {
      // Nothing to play: a goodbye that said nothing still ends the call.
      if (r.purpose === 'goodbye' && !r.cut) this.finish(this.goodbyeReason);
      if (r.purpose !== 'reminder') this.maybeQuiet();
    }
    this.pump();
  }

  private onSpeechStarted(itemId: string): void {
    this.behaviours.busy();
    this.callerSpeaking = true;
    this.speechSeq++;
    this.userSpeech.set(itemId, { startMs: this.callMs(), endMs: null });
    // Fillers and reminders not yet said are moot: the caller is talking.
    for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i].purpose === 'filler' || this.queue[i].purpose === 'reminder') this.queue.splice(i, 1);
    if (this.ending) return;
    if (this.outstanding.some((r) => r.turn && r.turn.firstFrameAt !== null && !r.turn.dropped)) {
      if (this.interruption.enabled && !this.bargedIn) this.onBargeIn('provider');
      return;
    }
    // The caller went on before the answer started playing: that answer is for a turn that is
    // not over. The server cancels it (interrupt_response); what arrived of it is dropped unheard.
    if (this.outstanding.length || this.active) this.cutAgent(false);
  }

  private onInputTranscript(itemId: string, raw: string): void {
    const text = raw.trim();
    if (!text) return;
    const s = this.userSpeech.get(itemId);
    this.userSpeech.delete(itemId);
    const end = s?.endMs ?? this.callMs();
    this.transcript.push({ role: 'user', text, start_ms: Math.round(s?.startMs ?? end), end_ms: Math.round(end) });
    this.host?.sendControl({ type: 'transcript', role: 'user', text });
  }

  // ------------------------------------------------------------------ responses we ask for

  private request(purpose: Purpose, instructions?: string): void {
    if (this.stopped || this.failed) return;
    this.queue.push({ purpose, instructions, seq: ++this.requestSeq, eventId: null, timer: null });
    this.pump();
  }

  /** Sends the next queued request once no response is running (one at a time per conversation). */
  private pump(): void {
    const session = this.session;
    if (!session || this.stopped || this.requested || this.active) return;
    const req = this.queue.shift();
    if (!req) return;
    req.eventId = session.createResponse({ instructions: req.instructions, metadata: { [META_PURPOSE]: req.purpose, [META_REQUEST]: String(req.seq) } });
    req.timer = setTimeout(() => {
      if (this.requested !== req) return;
      this.requested = null;
      this.requestFailed(req);
      this.pump();
    }, REQUEST_TIMEOUT_MS);
    this.requested = req;
  }

  // ------------------------------------------------------------------ barge-in

  /** The caller spoke over the agent: stop it, tell the client, keep only what was heard. */
  private onBargeIn(source: 'detector' | 'provider'): void {
    const playing = this.outstanding.find((r) => r.turn && r.turn.firstFrameAt !== null && !r.turn.dropped);
    if (!playing || this.bargedIn) return;
    this.bargedIn = true;
    this.behaviours.busy();
    this.cutAgent(true);
    // The provider now hears the microphone, starting with what it said just before.
    if (source === 'detector') {
      this.withheld = false;
      this.flushPreroll();
    }
  }

  /**
   * Stops every response queued or playing (and the one being generated): their audio is
   * dropped, the provider cancels and truncates each item at what was played, and the
   * transcript keeps the heard words. `interrupted` (a barge-in) also tells the client.
   */
  private cutAgent(interrupted: boolean): void {
    const lead = this.line.leadSamples();
    let heardNow = '';
    const session = this.session;
    if (this.active && !this.active.done) {
      this.active.cut = true;
      session?.cancel();
    }
    for (const r of this.outstanding) {
      const turn = r.turn!;
      const played = turn.firstFrameAt === null ? 0 : Math.max(0, Math.min(turn.sent, r.heard.queuedSamples) - lead);
      const heard = r.heard.heardAt(played);
      if (turn.firstFrameAt !== null && !turn.dropped) heardNow = heard;
      r.cut = true;
      this.truncateItems(r, played);
      if (heard) this.recordAssistant(r, heard);
      r.reported = true;
      if (r.done) this.responses.delete(r.id);
    }
    if (interrupted) this.host?.sendControl({ type: 'interrupted', heard: heardNow });
    this.outstanding = [];
    this.audio.dropAll();
    this.host?.clearPlayback();
  }

  /** conversation.item.truncate for each audio item of `r`, at the milliseconds of it that played. */
  private truncateItems(r: Response, playedSamples: number): void {
    const session = this.session;
    if (!session) return;
    const rate = this.config.sampleRateOut;
    for (let i = 0; i < r.items.length; i++) {
      const it = r.items[i];
      const end = r.items[i + 1]?.start ?? r.heard.queuedSamples;
      const inItem = Math.max(0, Math.min(playedSamples, end) - it.start);
      session.truncate(it.itemId, it.contentIndex, Math.floor((inItem * 1000) / rate));
    }
  }

  /** max_chars_per_min reached during a response: the rest of it is not spoken. */
  private silence(r: Response): void {
    r.silenced = true;
    this.host?.sendControl({ type: 'error', message: `max_chars_per_min reached: ${this.config.agent.maxCharsPerMin} characters per minute; the rest of the answer is not spoken` });
    if (this.active === r) this.session?.cancel();
    // The model remembers only what will be played.
    this.truncateItems(r, r.heard.queuedSamples);
  }

  // ------------------------------------------------------------------ tools

  private async runTools(r: Response): Promise<void> {
    const session = this.session;
    if (!session) return;
    const speechAt = this.speechSeq;
    let answered = false;
    this.toolsRunning++;
    this.behaviours.awaitingAnswer();
    try {
      for (const call of r.calls) {
        if (call.name === END_CALL) {
          r.endCall = true;
          continue;
        }
        const output = await this.runToolCall(call);
        if (this.stopped) return;
        session.sendToolResult(call.id, output);
        answered = true;
      }
    } finally {
      this.toolsRunning--;
    }
    if (this.stopped) return;
    if (r.endCall) {
      // After its last words: at turnSent, or now when it said nothing (or was cut).
      if (!r.turn || r.reported || r.turn.dropped) this.finish('agent_hangup');
      return;
    }
    // The caller spoke meanwhile: the server's own answer to that turn sees the tool output.
    if (answered && this.speechSeq === speechAt && !this.ending) this.request('answer');
  }

  private async runToolCall(call: LlmToolCall): Promise<string> {
    const args = parseArguments(call.arguments);
    if (call.name === SEND_DTMF && this.config.agent.canSendDtmf) {
      const digits = typeof args?.digits === 'string' ? args.digits : '';
      if (!DTMF_DIGITS.test(digits)) return JSON.stringify({ error: 'digits must be 1-32 of 0-9, *, #, A-D' });
      const turn = new AgentTurn('dtmf');
      for (const d of digits) this.audio.append(turn, dtmfGenerate(d.toUpperCase(), { sampleRateHz: this.config.sampleRateOut }));
      this.audio.finish(turn);
      this.host?.kick();
      return JSON.stringify({ result: `pressed ${digits}` });
    }
    if (!this.config.agent.tools.some((t) => t.name === call.name)) return JSON.stringify({ error: `unknown tool ${call.name}` });
    if (!this.runTool || !this.config.agent.toolWebhookUrl) return JSON.stringify({ error: 'the tool is not available' });
    if (args === null) return JSON.stringify({ error: 'arguments must be a JSON object' });
    const res = await this.runTool(call.name, args, this.controller.signal);
    return JSON.stringify(res.ok ? { result: res.result } : { error: `the tool failed: ${res.error}` });
  }

  // ------------------------------------------------------------------ agent turns

  private onTurnStarted(turn: AgentTurn): void {
    // The idle reminder does not stop the hang-up clock: silence since the last real exchange counts.
    if (turn.kind === 'reminder' || turn.kind === 'goodbye') return;
    this.behaviours.busy();
    if (turn.kind === 'answer' || turn.kind === 'greeting' || turn.kind === 'filler') this.behaviours.answerStarted();
  }

  private onTurnSent(turn: AgentTurn): void {
    if (turn.kind === 'dtmf') return;
    const r = this.outstanding.find((x) => x.turn === turn);
    if (!r) return;
    this.outstanding = this.outstanding.filter((x) => x !== r);
    if (r.done) this.responses.delete(r.id);
    this.recordAssistant(r, r.finalText || r.heard.fullText);
    r.reported = true;
    // As in the cascade, a filler ("One moment, please.") is an utterance but not a turn of its own.
    if (r.purpose !== 'filler' && turn.queued > 0) this.host?.sendControl({ type: 'turn_complete' });
    if (r.endCall) return this.finish('agent_hangup');
    if (r.purpose === 'goodbye') return this.finish(this.goodbyeReason);
    if (r.purpose === 'reminder') return; // the hang-up clock is still running
    this.maybeQuiet();
  }

  private recordAssistant(r: Response, text: string): void {
    if (r.reported || !text) return;
    r.reported = true;
    const start = (r.turn?.firstFrameAt ?? this.now()) - this.startedAtMs;
    this.transcript.push({ role: 'assistant', text, start_ms: Math.round(start), end_ms: Math.round(this.callMs()) });
    this.host?.sendControl({ type: 'transcript', role: 'assistant', text });
  }

  /** Nobody is speaking and nothing is on its way: the idle clocks run. */
  private maybeQuiet(): void {
    if (this.ending || this.callerSpeaking || this.active || this.requested || this.queue.length || this.outstanding.length || this.toolsRunning) return;
    this.behaviours.quiet();
  }

  private onDeadAir(): void {
    // The answer is late. A response cannot start while another runs, so the filler is only
    // possible while a tool runs (the model's answer is waiting for it).
    if (this.active || this.requested || this.outstanding.length || !this.toolsRunning || this.ending) return;
    this.request('filler', sayExactly(Phrases.filler));
  }

  private onIdleWarn(): void {
    if (this.active || this.requested || this.outstanding.length || this.callerSpeaking || this.ending) return;
    this.behaviours.warned();
    this.request('reminder', sayExactly(Phrases.idleReminder));
  }

  /** The agent says goodbye (its own response), then the call ends with `reason`. */
  private sayAndEnd(text: string, reason: 'idle_timeout' | 'max_duration'): void {
    if (this.ending || this.stopped) return;
    this.ending = true;
    this.goodbyeReason = reason;
    this.queue.length = 0;
    if (this.outstanding.length || this.active) this.cutAgent(false);
    this.request('goodbye', sayExactly(text));
    const t = setTimeout(() => this.finish(reason), GOODBYE_TIMEOUT_MS);
    this.timers.add(t);
  }

  private finish(reason: 'idle_timeout' | 'max_duration' | 'agent_hangup'): void {
    if (this.stopped || this.finishing) return;
    this.finishing = true;
    // Let the last frames (the pacing lead) reach the caller before the close.
    const lead = this.host?.leadMs() ?? 0;
    const t = setTimeout(() => this.host?.end('completed', reason), lead);
    this.timers.add(t);
  }

  // ------------------------------------------------------------------ provider failures

  private get provider(): string {
    return this.config.adapters.realtime!.adapter.provider;
  }

  private onProviderError(err: ProviderError, clientEventId: string | undefined): void {
    const req = this.requested;
    const ours = req !== null && clientEventId !== undefined && req.eventId === clientEventId;
    if (err.kind === 'auth') return this.fatal(err);
    if (ours) {
      if (req.timer) clearTimeout(req.timer);
      this.requested = null;
      // Our response.create raced one the server started: say ours after it (an answer is
      // moot: the server's response already answers the conversation as it is).
      if (err.code === 'conversation_already_has_active_response') {
        if (req.purpose !== 'answer') this.queue.unshift(req);
        return this.pump();
      }
      this.requestFailed(req);
    }
    this.log?.warn({ session_id: this.config.sessionId, provider: err.provider, kind: err.kind, code: err.code }, 'realtime provider reported an error');
    if (err.recoverable) this.recoverable(err);
    this.pump();
  }

  /** A response we asked for will not come. */
  private requestFailed(req: Request): void {
    if (req.purpose === 'greeting') this.greetingHold = false;
    if (req.purpose === 'goodbye') this.finish(this.goodbyeReason);
  }

  private recoverable(err: ProviderError): void {
    this.host?.sendControl({ type: 'error', message: err.message });
  }

  /** The session cannot go on (auth, protocol, the socket closed): the call fails `provider_error`. */
  private fatal(err: unknown): void {
    if (this.stopped || this.failed) return;
    const e = isProviderError(err) ? err : new ProviderError('protocol', `${this.provider} realtime session failed`, { provider: this.provider, cause: err });
    if (e.kind === 'aborted') return;
    this.failed = true;
    this.log?.warn({ session_id: this.config.sessionId, provider: e.provider, kind: e.kind, status: e.status, code: e.code }, 'realtime session failed');
    if (e.invalidatesAccount) {
      const accountId = this.config.accountIds.realtime;
      if (accountId) this.opts.accountInvalid?.(accountId, e.message);
    }
    this.host?.sendControl({ type: 'error', message: e.message });
    this.host?.end('failed', 'provider_error');
  }

  private callMs(): number {
    return this.now() - this.startedAtMs;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.add(t);
    });
  }
}

/** Instructions for a response that must say fixed words (greeting, goodbye, reminder, filler). */
export function sayExactly(text: string): string {
  return `Say exactly the following, word for word, and nothing else: "${text}"`;
}
