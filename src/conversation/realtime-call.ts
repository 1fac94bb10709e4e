import { ChannelEvents } from '../audio/native.js';
import { isProviderError, ProviderError } from '../providers/errors.js';
import type { RealtimeEvent, RealtimeSession, RealtimeSessionConfig } from '../providers/types.js';
import type { TranscriptEntry } from '../contract/events.js';
import { AgentTurn, FIXED_PHRASES } from './agent-audio.js';
import type { CallConfig } from './call-config.js';
import { asProviderError, CallShell, type CallEngine, type CallerFrames, type CallOptions } from './call-shell.js';
import { Phrases } from './phrases.js';
import { PickupWord } from './pickup.js';
import { ResponseLedger, type Purpose, type Response, type ResponseRequest } from './realtime-ledger.js';
import { RealtimeMic } from './realtime-mic.js';
import { ResponsePlayback } from './realtime-playback.js';
import { realtimeSessionConfig, sayExactly, type RealtimeSessionOptions } from './realtime-session-config.js';
import { ShellPipeline } from './shell-pipeline.js';
import { END_CALL } from './tools.js';

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

/** Tries to open the realtime session when the provider answers 429/5xx or times out. */
const CONNECT_TRIES = 3;
/** The goodbye's own response may fail: the call ends after this long regardless. */
const GOODBYE_TIMEOUT_MS = 15_000;
/** Rough speaking rate, to start the max-duration goodbye early enough. */
const MS_PER_CHAR = 75;
/** The model's time to first audio, also counted before the max-duration goodbye. */
const RESPONSE_LATENCY_MS = 1500;

export type RealtimeCallOptions = CallOptions & RealtimeSessionOptions;

export class RealtimeCall extends ShellPipeline implements CallEngine {
  protected readonly shell: CallShell;
  private readonly mic: RealtimeMic;
  private readonly ledger: ResponseLedger;
  private readonly playback: ResponsePlayback;
  private session: RealtimeSession | null = null;
  private failed = false;
  private bargedIn = false;
  /**
   * Until the greeting has been generated (or the caller barged in on it) the microphone is
   * withheld too: a caller's "hello?" would otherwise make the server's VAD cancel the greeting
   * (interrupt_response) or answer before it. What the caller says meanwhile goes up (from the
   * preroll) once it is over.
   */
  private greetingHold: boolean;
  private readonly pickup: PickupWord;
  /** The current goodbye's timeout; a goodbye the caller cut leaves it to the shell. */
  private goodbyeSeq = 0;
  private toolsRunning = 0;
  /** Caller speech the provider detected: start per input item, for the transcript. */
  private readonly userSpeech = new Map<string, { startMs: number; endMs: number | null }>();
  private callerSpeaking = false;
  private speechSeq = 0;

  constructor(private readonly config: CallConfig, private readonly opts: RealtimeCallOptions = {}) {
    super();
    if (!config.adapters.realtime) throw new Error('realtime pipeline needs a realtime stage');
    this.shell = new CallShell(config, opts, this);
    this.mic = new RealtimeMic(this.shell.line.procRateHz);
    this.ledger = new ResponseLedger({
      session: () => (this.shell.stopped ? null : this.session),
      gaveUp: (req) => this.requestFailed(req),
    });
    this.playback = new ResponsePlayback(this.shell, this.ledger, () => this.session);
    this.greetingHold = Boolean(config.agent.greeting);
    this.pickup = new PickupWord({
      outbound: config.direction === 'outbound',
      detectorDelayMs: this.shell.interruption.minDurationMs,
      tooLong: () => {
        const playing = this.ledger.playing;
        if (playing && !this.bargedIn) this.interrupt(playing, 'pickup');
      },
    });
  }

  /** What the session is opened with (session.update). */
  sessionConfig(): RealtimeSessionConfig {
    return realtimeSessionConfig(this.config, this.opts);
  }

  /** Transcription runs alongside the answer: the caller's entries may come late, so they are sorted by start. */
  override stop(): TranscriptEntry[] {
    return super.stop().sort((a, b) => a.start_ms - b.start_ms);
  }

  // ------------------------------------------------------------------ CallEngine

  begin(): void {
    this.shell.scheduleGoodbye(Phrases.maxDurationGoodbye.length * MS_PER_CHAR + RESPONSE_LATENCY_MS);
    void this.run();
  }

  hear({ pcm, events, now, agentAudible, bargeIn }: CallerFrames): void {
    if (bargeIn) this.onBargeIn('detector', now);
    if (events & ChannelEvents.interruptionEnd && this.pickup.judging) {
      this.pickup.ended();
      // Only a pickup word: the greeting goes on from where the callee stopped hearing it.
      if (!this.bargedIn && this.shell.audio.isPaused) {
        this.shell.audio.resume();
        this.shell.kick();
      }
    }

    // The provider hears the caller, never the agent's own echo: while the agent may be in the
    // microphone (and no barge-in), silence goes up in its place and the microphone is kept.
    // Once the call is ending only a caller who cut the goodbye is heard. A word being judged as
    // a pickup ("hello?") stays withheld until it is judged, even past the greeting's echo tail.
    const listening = !this.greetingHold && !this.pickup.judging && (this.bargedIn || (!this.shell.ending && !agentAudible));
    if (listening) {
      // Speech that began in the echo tail is the caller's: its start goes up too.
      const vad = this.shell.channel.vadState;
      this.mic.listen(pcm, vad === 'speaking' || vad === 'starting');
      if (events & ChannelEvents.speechStart) this.shell.behaviours.busy();
    } else {
      this.mic.withhold(pcm);
    }
  }

  keysPressed(text: string): void {
    if (!this.session) return;
    this.session.sendUserText(text);
    this.request('answer');
  }

  halt(): void {
    this.ledger.stop();
    this.pickup.stop();
    // What the caller heard of an answer cut by the hang-up still belongs to the transcript.
    this.playback.hangUp();
    this.session?.close();
  }

  // ------------------------------------------------------------------ the provider session

  private async run(): Promise<void> {
    const stage = this.config.adapters.realtime!;
    let session: RealtimeSession | null = null;
    for (let attempt = 1; !session; attempt++) {
      try {
        session = await stage.adapter.connect({ session: this.sessionConfig(), signal: this.shell.signal });
      } catch (err) {
        if (this.shell.stopped) return;
        if (isProviderError(err) && err.recoverable && attempt < CONNECT_TRIES) {
          this.shell.reportError(err);
          await new Promise<void>((resolve) => this.shell.after(500 * attempt, resolve));
          if (this.shell.stopped) return;
          continue;
        }
        return this.fatal(err);
      }
    }
    if (this.shell.stopped) return session.close();
    this.session = session;
    this.mic.attach(session);
    const greeting = this.config.agent.greeting;
    if (greeting) this.request('greeting', sayExactly(greeting));
    else this.shell.behaviours.quiet();
    try {
      for await (const ev of session) {
        if (this.shell.stopped) return;
        this.onEvent(ev);
      }
      if (!this.shell.stopped) this.fatal(new ProviderError('unavailable', `${stage.adapter.provider} realtime session ended`, { provider: stage.adapter.provider }));
    } catch (err) {
      if (!this.shell.stopped) this.fatal(err);
    }
  }

  private onEvent(ev: RealtimeEvent): void {
    switch (ev.type) {
      case 'response_created':
        this.opened(ev.responseId, ev.metadata);
        return;
      case 'audio':
        return this.onAudio(ev);
      case 'transcript_delta': {
        const r = this.ledger.get(ev.responseId);
        if (!r || r.cut) return;
        r.heard.addText(ev.text);
        if (!r.silenced && r.purpose !== 'goodbye' && !this.shell.takeChars(ev.text.length)) this.playback.silence(r);
        return;
      }
      case 'transcript_done': {
        const r = this.ledger.get(ev.responseId);
        if (r) r.finalText = ev.text.trim();
        return;
      }
      case 'tool_call': {
        const r = this.opened(ev.responseId, null);
        if (!r.cut) r.calls.push(ev.call);
        return;
      }
      case 'response_done':
        return this.onResponseDone(ev);
      case 'speech_started':
        return this.onSpeechStarted(ev.itemId);
      case 'speech_stopped': {
        const s = this.userSpeech.get(ev.itemId);
        if (s) s.endMs = this.shell.callMs();
        this.callerSpeaking = false;
        this.bargedIn = false;
        // The server answers on its own (create_response): the answer must start within dead_air_seconds.
        if (!this.shell.ending) this.shell.behaviours.awaitingAnswer();
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

  /** The response `id` (known, or opened now: response.created or the first event of one we missed it for). */
  private opened(id: string, metadata: Record<string, string> | null): Response {
    const known = this.ledger.get(id);
    if (known) return known;
    const r = this.ledger.open(id, metadata);
    // Once the call is ending, only the goodbye is spoken (a caller turn may still start a response).
    if (this.shell.ending && r.purpose !== 'goodbye') {
      r.cut = true;
      this.session?.cancel();
    }
    return r;
  }

  private onAudio(ev: Extract<RealtimeEvent, { type: 'audio' }>): void {
    const r = this.opened(ev.responseId, null);
    if (r.cut || r.silenced || this.shell.stopped) return;
    if (!r.turn) {
      this.playback.startTurn(r);
      // A new answer is playing: the caller's barge-in (if any) is over.
      this.bargedIn = false;
    }
    this.playback.play(r, ev);
  }

  private onResponseDone(ev: Extract<RealtimeEvent, { type: 'response_done' }>): void {
    const r = this.opened(ev.responseId, ev.metadata ?? null);
    this.ledger.done(r);
    if (r.purpose === 'greeting') this.greetingHold = false;
    if (ev.status === 'failed' && !r.cut) {
      const code = ev.errorCode ? ` (${ev.errorCode})` : '';
      this.shell.log?.warn({ session_id: this.config.sessionId, code: ev.errorCode }, 'realtime response failed');
      this.shell.send({ type: 'error', message: `${this.provider} could not finish the answer${code}` });
    }
    // Nothing more comes for it: forget it once its audio (if any) is played or dropped.
    if (!r.turn || r.cut || r.reported) this.ledger.forget(r);
    if (r.turn && !r.cut) this.playback.end(r);
    if (!r.cut && ev.status === 'completed' && r.calls.length) void this.runTools(r);
    else if (!r.turn || r.cut) {
      // Nothing to play: a goodbye that said nothing still ends the call.
      if (r.purpose === 'goodbye' && !r.cut) this.shell.finish(this.shell.goodbyeReason);
      if (r.purpose !== 'reminder') this.maybeQuiet();
    }
    this.ledger.pump();
  }

  private onSpeechStarted(itemId: string): void {
    this.shell.behaviours.busy();
    this.callerSpeaking = true;
    this.speechSeq++;
    this.userSpeech.set(itemId, { startMs: this.shell.callMs(), endMs: null });
    // Fillers and reminders not yet said are moot: the caller is talking.
    this.ledger.dropQueued(['filler', 'reminder']);
    if (this.shell.ending) return;
    if (this.ledger.playing) {
      if (this.shell.interruption.enabled) this.onBargeIn('provider', this.shell.now());
      return;
    }
    // The caller went on before the answer started playing: that answer is for a turn that is
    // not over. The server cancels it (interrupt_response); what arrived of it is dropped unheard.
    if (this.ledger.outstanding.length || this.ledger.active) this.playback.cut(false);
  }

  private onInputTranscript(itemId: string, raw: string): void {
    const text = raw.trim();
    if (!text) return;
    const s = this.userSpeech.get(itemId);
    this.userSpeech.delete(itemId);
    const end = s?.endMs ?? this.shell.callMs();
    this.shell.callerSaid(text, s?.startMs ?? end, end);
  }

  private request(purpose: Purpose, instructions?: string): void {
    if (this.shell.stopped || this.failed) return;
    this.ledger.ask(purpose, instructions);
  }

  // ------------------------------------------------------------------ barge-in

  /** The caller spoke over the agent at `now`: an interruption, unless the turn playing is not to be cut. */
  private onBargeIn(source: 'detector' | 'provider', now: number): void {
    const playing = this.ledger.playing;
    if (!playing || this.bargedIn || this.pickup.judging) return;
    // Contract §11: interruptible_greeting false keeps greetings, reminders and goodbyes playing.
    if (!this.config.agent.interruptibleGreeting && FIXED_PHRASES.has(playing.purpose)) return;
    // A callee's "hello?" as they pick up is judged before the greeting is cut; the phone stops
    // at once (`clear`) and the unplayed rest goes back to the front, to resume after the word.
    if (source === 'detector' && this.pickup.begin(playing.turn!, now)) {
      this.shell.audio.pause(this.shell.line.leadSamples());
      this.shell.clearPlayback();
      return;
    }
    this.interrupt(playing, source);
  }

  /** Stops the agent, tells the client, keeps only what was heard; the provider takes the caller's turn. */
  private interrupt(playing: Response, source: 'detector' | 'provider' | 'pickup'): void {
    this.bargedIn = true;
    this.greetingHold = false;
    this.shell.behaviours.busy();
    this.playback.cut(true);
    if (playing.purpose === 'goodbye') {
      this.goodbyeSeq++;
      this.shell.goodbyeInterrupted();
    }
    // The provider now hears the microphone, starting with what it said just before (after a
    // pickup word judged too long, from the start of that speech).
    if (source !== 'provider') this.mic.release(source === 'pickup');
  }

  // ------------------------------------------------------------------ tools

  private async runTools(r: Response): Promise<void> {
    const session = this.session;
    if (!session) return;
    const speechAt = this.speechSeq;
    let answered = false;
    this.toolsRunning++;
    this.shell.behaviours.awaitingAnswer();
    try {
      for (const call of r.calls) {
        if (call.name === END_CALL) {
          r.endCall = true;
          continue;
        }
        const output = await this.shell.runToolCall(call, this.shell.signal, (tones) => this.pressKeys(tones));
        if (this.shell.stopped) return;
        session.sendToolResult(call.id, output);
        answered = true;
      }
    } finally {
      this.toolsRunning--;
    }
    if (this.shell.stopped) return;
    if (r.endCall) {
      // After its last words: at turnSent, or now when it said nothing (or was cut).
      if (!r.turn || r.reported || r.turn.dropped) this.shell.finish('agent_hangup');
      return;
    }
    // The caller spoke meanwhile: the server's own answer to that turn sees the tool output.
    if (answered && this.speechSeq === speechAt && !this.shell.ending) this.request('answer');
  }

  /** send_dtmf: the tones as a turn of their own in the agent's audio. */
  private pressKeys(tones: Int16Array[]): void {
    const turn = new AgentTurn('dtmf');
    for (const t of tones) this.shell.audio.append(turn, t);
    this.shell.audio.finish(turn);
    this.shell.kick();
  }

  // ------------------------------------------------------------------ agent turns

  turnStarted(turn: AgentTurn): void {
    if (turn.kind === 'answer' || turn.kind === 'greeting' || turn.kind === 'filler') this.shell.behaviours.answerStarted();
  }

  turnSent(turn: AgentTurn): void {
    if (turn.kind === 'dtmf') return;
    const r = this.ledger.outstanding.find((x) => x.turn === turn);
    if (!r) return;
    this.ledger.outstanding = this.ledger.outstanding.filter((x) => x !== r);
    if (r.done) this.ledger.forget(r);
    this.playback.record(r, r.finalText || r.heard.fullText);
    r.reported = true;
    // As in the cascade, a filler ("One moment, please.") is an utterance but not a turn of its own.
    if (r.purpose !== 'filler' && turn.queued > 0) this.shell.send({ type: 'turn_complete' });
    if (r.endCall) return this.shell.finish('agent_hangup');
    if (r.purpose === 'goodbye') return this.shell.finish(this.shell.goodbyeReason);
    if (r.purpose === 'reminder') return; // the hang-up clock is still running
    this.maybeQuiet();
  }

  /** Nobody is speaking and nothing is on its way: the idle clocks run. */
  private maybeQuiet(): void {
    if (this.shell.ending || this.callerSpeaking || !this.ledger.idle || this.toolsRunning) return;
    this.shell.behaviours.quiet();
  }

  deadAir(): void {
    // The answer is late. A response cannot start while another runs, so the filler is only
    // possible while a tool runs (the model's answer is waiting for it).
    if (this.ledger.busy || !this.toolsRunning || this.shell.ending) return;
    this.request('filler', sayExactly(Phrases.filler));
  }

  idleWarn(): void {
    if (this.ledger.busy || this.callerSpeaking || this.shell.ending) return;
    this.shell.behaviours.warned();
    this.request('reminder', sayExactly(Phrases.idleReminder));
  }

  sayGoodbye(text: string): void {
    this.ledger.dropQueued();
    if (this.ledger.outstanding.length || this.ledger.active) this.playback.cut(false);
    this.request('goodbye', sayExactly(text));
    const reason = this.shell.goodbyeReason;
    const goodbye = ++this.goodbyeSeq;
    this.shell.after(GOODBYE_TIMEOUT_MS, () => goodbye === this.goodbyeSeq && this.shell.finish(reason));
  }

  // ------------------------------------------------------------------ provider failures

  private get provider(): string {
    return this.config.adapters.realtime!.adapter.provider;
  }

  private onProviderError(err: ProviderError, clientEventId: string | undefined): void {
    if (err.kind === 'auth') return this.fatal(err);
    const refusal = this.ledger.refused(clientEventId, err.code);
    // Our response.create raced one the server started: ours goes after it.
    if (refusal?.retried) return this.ledger.pump();
    if (refusal) this.requestFailed(refusal.req);
    this.shell.log?.warn({ session_id: this.config.sessionId, provider: err.provider, kind: err.kind, code: err.code }, 'realtime provider reported an error');
    if (err.recoverable) this.shell.reportError(err);
    this.ledger.pump();
  }

  /** A response we asked for will not come. */
  private requestFailed(req: ResponseRequest): void {
    if (req.purpose === 'greeting') this.greetingHold = false;
    if (req.purpose === 'goodbye') this.shell.finish(this.shell.goodbyeReason);
  }

  /** The session cannot go on (auth, protocol, the socket closed): the call fails `provider_error`. */
  private fatal(err: unknown): void {
    if (this.shell.stopped || this.failed) return;
    const e = asProviderError(err, this.provider, `${this.provider} realtime session failed`);
    if (e.kind === 'aborted') return;
    this.failed = true;
    this.shell.noteFailure(e, 'realtime', 'realtime session failed');
    this.shell.fail(e);
  }
}
