import { ChannelEvents } from '../audio/native.js';
import type { LlmMessage } from '../providers/types.js';
import { PickupWord } from './pickup.js';
import { countFalseInterruption } from '../metrics/media.js';
import { AgentTurn, FIXED_PHRASES } from './agent-audio.js';
import { Answer } from './cascade-answer.js';
import type { CallConfig } from './call-config.js';
import { asProviderError, CallShell, type CallEngine, type CallerFrames, type CallOptions } from './call-shell.js';
import { isBackchannel, Phrases, wordCount } from './phrases.js';
import { PhraseBook } from './phrase-book.js';
import { PhraseTurns } from './phrase-turns.js';
import { Preroll } from './preroll.js';
import { Recognizer } from './recognizer.js';
import { ShellPipeline } from './shell-pipeline.js';
import { TurnSpeaker, type SpeakerHooks } from './speaker.js';
import { toolsFor } from './tools.js';

// The cascade conversation (spec 1, 2.4; issue "conversation engine"): caller audio → native
// channel (framing, resampling, VAD, echo-aware barge-in) → streaming STT; the caller's turn
// ends on VAD silence (stt.endpointing_ms) plus the STT final; the LLM's tokens are cut into
// sentences and spoken one by one through TTS into AgentAudio, which the session's pacer
// sends. Barge-in (over an answer, the greeting, a reminder or a goodbye) drops the agent's
// audio, cancels generation and keeps in the history only what the caller heard.

/** Caller audio kept from before a barge-in is confirmed, so STT hears its first syllables. */
const PREROLL_MS = 800;
/** How long to wait for the STT final once the VAD says the caller stopped. */
const FINAL_WAIT_MS = { streaming: 1500, utterance: 8000 };
/** Caller speech before the agent acknowledges a long turn, and the pause that lets it. */
const ACK_AFTER_MS = 5000;
/** A resumed answer's backchannel may still be transcribed this long after. */
const IGNORE_BACKCHANNEL_MS = 3000;
/**
 * The VAD can stay in speech for good over music or a crowd (its end is the only end of a turn):
 * after this long without a pause the turn is ended anyway, and a new one needs a new onset.
 */
const MAX_CALLER_SPEECH_MS = 10_000;
/**
 * Streaming STT: when the transcript at the VAD's end of speech does not look finished (no
 * sentence-ending punctuation, or a trailing conjunction), the turn waits this share of the
 * endpointing silence more for the caller to go on.
 */
const UNFINISHED_EXTRA = 0.8;
const TRAILING_WORD = /\b(and|but|or|so|because|the|a|an|to|of|with|my|i|um|uh|er)\s*$/i;
/** Each stage's name in errors and logs. */
const STAGE_WORDS = { stt: 'speech recognition', llm: 'language model', tts: 'speech synthesis' } as const;

export type CascadeOptions = CallOptions;

interface UserTurn {
  startMs: number;
  endMs: number;
  finals: string[];
  interim: string;
  vadEnded: boolean;
  finalTimer: NodeJS.Timeout | null;
  /** A commit put off because the transcript looked unfinished. */
  commitTimer: NodeJS.Timeout | null;
}

/** A barge-in on hold (backchannel on): the agent's turn is paused until we know what the caller meant. */
interface PendingBargeIn {
  onsetMs: number;
  /** How long the caller spoke, once the VAD says they stopped (back-dated, without its hangover). */
  spokeMs: number | null;
  timer: NodeJS.Timeout;
}

export class CascadeCall extends ShellPipeline implements CallEngine {
  protected readonly shell: CallShell;
  private readonly stt: Recognizer;
  private readonly preroll: Preroll;
  private readonly phrases: PhraseBook;
  private readonly history: LlmMessage[];
  private readonly spoken: PhraseTurns;

  private userTurn: UserTurn | null = null;
  private generation: Answer | null = null;
  private pending: PendingBargeIn | null = null;
  private readonly pickup: PickupWord;
  /** The caller's speech started during the agent's audio and was taken as a barge-in. */
  private bargedIn = false;
  private fillerTurn: AgentTurn | null = null;
  private callerSpeechStartMs: number | null = null;
  /** The turn was ended while the VAD still heard "speech": wait for a new onset. */
  private forcedEnd = false;
  private lastAckMs = -Infinity;
  private ignoreBackchannelUntil = -Infinity;
  /** Latency probe for the turn benchmark: turn decided → first answer frame sent. */
  onAnswerLatency: ((ms: number) => void) | null = null;
  private answerDecidedAt = 0;
  /** The VAD's end-of-speech silence (stt.endpointing_ms, bounded). */
  private readonly endpointingMs: number;

  constructor(private readonly config: CallConfig, opts: CascadeOptions = {}) {
    super();
    this.endpointingMs = Math.max(100, Math.min(2000, config.endpointingMs));
    this.shell = new CallShell(config, opts, this, this.endpointingMs);
    this.preroll = new Preroll(this.shell.line.procRateHz, PREROLL_MS);
    this.stt = new Recognizer(config, this.shell, {
      interim: (text) => this.onInterim(text),
      final: (text, speechFinal) => this.onFinal(text, speechFinal),
      utteranceEnd: () => {
        if (this.userTurn?.vadEnded) this.endUserTurn();
      },
      recoverable: (err) => this.shell.reportError(err),
      failed: (err) => this.providerFailed(err, 'stt'),
    });
    // A phrase that cannot be synthesized: said in an error frame, and fatal only when the provider refuses us.
    this.phrases = new PhraseBook(config, this.shell.signal, (err) => (err.recoverable ? this.shell.reportError(err) : this.providerFailed(err, 'tts')));
    this.history = [{ role: 'system', content: config.agent.prompt }];
    this.spoken = new PhraseTurns(this.shell, this.phrases, this.history);
    this.pickup = new PickupWord({
      outbound: config.direction === 'outbound',
      detectorDelayMs: this.shell.interruption.minDurationMs,
      tooLong: (onsetMs) => {
        const turn = this.cuttableTurn();
        if (turn && !this.pending && !this.bargedIn) this.interrupt(turn, onsetMs);
        else this.resumeAfterPickup();
      },
    });
    // The greeting is synthesized now, while the socket upgrade completes (or comes from the cache).
    if (config.agent.greeting) void this.phrases.get(config.agent.greeting);
  }

  // ------------------------------------------------------------------ CallEngine

  begin(): void {
    const greeting = this.config.agent.greeting;
    if (greeting) this.spoken.speak('greeting', greeting);
    else this.shell.behaviours.quiet();
    this.phrases.prepare(this.config.agent);
    void this.phrases.durationMs(Phrases.maxDurationGoodbye).then((ms) => this.shell.scheduleGoodbye(ms ?? 0));
    void this.stt.run();
  }

  hear({ pcm, events, now, agentAudible, bargeIn }: CallerFrames): void {
    if (bargeIn) this.onBargeIn(now);
    if (events & ChannelEvents.interruptionEnd && this.pickup.judging) {
      this.pickup.ended();
      this.resumeAfterPickup();
    }
    if (events & (ChannelEvents.speechStart | ChannelEvents.speechEnd)) this.forcedEnd = false;

    // The microphone goes to STT unless it only carries the agent's own echo.
    const listening = !agentAudible || this.bargedIn || this.pending !== null;
    if (listening) {
      this.preroll.flush((f) => this.stt.write(f));
      this.stt.write(pcm.slice());
    } else {
      this.preroll.keep(pcm);
    }

    // Speech that began while only the agent's echo was expected is the caller's once the tail is over.
    if (listening && !this.userTurn && (events & ChannelEvents.speechStart || (!this.forcedEnd && this.shell.channel.vadState === 'speaking'))) this.onSpeechStart(now);
    if (events & ChannelEvents.speechEnd && (listening || this.userTurn)) this.onSpeechEnd(now);
    else if (this.userTurn && !this.userTurn.vadEnded && !this.pending && this.callerSpeechStartMs !== null && now - this.callerSpeechStartMs >= MAX_CALLER_SPEECH_MS) {
      this.forcedEnd = true;
      this.onSpeechEnd(now);
    }
    if (this.config.agent.backchannel) this.maybeAcknowledge(now);
  }

  keysPressed(text: string): void {
    this.answer(text);
  }

  halt(): void {
    const g = this.generation;
    g?.cancel();
    if (this.pending) clearTimeout(this.pending.timer);
    this.pickup.stop();
    if (this.userTurn?.finalTimer) clearTimeout(this.userTurn.finalTimer);
    if (this.userTurn?.commitTimer) clearTimeout(this.userTurn.commitTimer);
    // What the caller heard of a turn cut by the hang-up still belongs to the transcript.
    for (const turn of [g?.turn, this.spoken.unfinished]) {
      if (turn && turn.sent > 0 && !turn.reported) this.recordAssistant(turn, this.heard(turn));
    }
    this.stt.close();
  }

  // ------------------------------------------------------------------ the caller's turn

  private onSpeechStart(now: number): void {
    this.shell.behaviours.busy();
    this.callerSpeechStartMs ??= now;
    if (!this.userTurn) {
      this.userTurn = { startMs: this.shell.callMs(now), endMs: 0, finals: [], interim: '', vadEnded: false, finalTimer: null, commitTimer: null };
    } else {
      this.userTurn.vadEnded = false;
      if (this.userTurn.finalTimer) clearTimeout(this.userTurn.finalTimer);
      if (this.userTurn.commitTimer) clearTimeout(this.userTurn.commitTimer);
      this.userTurn.finalTimer = this.userTurn.commitTimer = null;
    }
    // The caller went on before the answer started: the turn is not over, drop that answer.
    const g = this.generation;
    if (g && g.turn.firstFrameAt === null && !this.pending && g.historyIndex === null) this.cancelGeneration(false);
  }

  private onSpeechEnd(now: number): void {
    this.callerSpeechStartMs = null;
    const turn = this.userTurn;
    if (!turn) return;
    turn.vadEnded = true;
    turn.endMs = this.shell.callMs(now);
    if (this.pending) {
      const { speechStartMs: from, speechEndMs: to } = this.shell.channel;
      this.pending.spokeMs ??= from >= 0 && to >= from ? to - from : now - this.pending.onsetMs;
      this.stt.commit();
      return;
    }
    // Endpointing: the VAD heard stt.endpointing_ms of silence; the STT final closes the turn.
    // A streaming transcript that stops mid-sentence gets a little longer to go on.
    const text = this.userText(turn);
    if (!this.forcedEnd && this.config.adapters.stt!.adapter.streaming && text && (!/[.?!]["')]*$/.test(text) || TRAILING_WORD.test(text))) {
      if (turn.commitTimer) clearTimeout(turn.commitTimer);
      turn.commitTimer = setTimeout(() => {
        turn.commitTimer = null;
        if (this.userTurn === turn && turn.vadEnded) this.commitTurn(turn);
      }, Math.round(this.endpointingMs * UNFINISHED_EXTRA));
      return;
    }
    this.commitTurn(turn);
  }

  private commitTurn(turn: UserTurn): void {
    this.stt.commit();
    const wait = this.config.adapters.stt!.adapter.streaming ? FINAL_WAIT_MS.streaming : FINAL_WAIT_MS.utterance;
    if (turn.finalTimer) clearTimeout(turn.finalTimer);
    turn.finalTimer = setTimeout(() => this.endUserTurn(), wait);
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
      if (this.shell.now() < this.ignoreBackchannelUntil && isBackchannel(t)) return;
      // A final with no VAD turn (speech the VAD missed): take it as a turn of its own.
      const at = this.shell.callMs();
      this.userTurn = { startMs: at, endMs: at, finals: [], interim: '', vadEnded: true, finalTimer: null, commitTimer: null };
    }
    if (t) this.userTurn.finals.push(t);
    this.userTurn.interim = '';
    if (this.pending) return this.judgePending(true);
    if (this.userTurn.vadEnded && !this.userTurn.commitTimer && (speechFinal || this.stt.open)) this.endUserTurn();
  }

  private userText(turn: UserTurn): string {
    return [...turn.finals, turn.interim].join(' ').replace(/\s+/g, ' ').trim();
  }

  /** The caller's turn is over: answer it (or drop it when nothing was understood). */
  private endUserTurn(): void {
    const turn = this.userTurn;
    if (!turn || this.shell.stopped) return;
    if (turn.finalTimer) clearTimeout(turn.finalTimer);
    if (turn.commitTimer) clearTimeout(turn.commitTimer);
    this.userTurn = null;
    this.bargedIn = false;
    const text = this.userText(turn);
    if (!text) {
      if (!this.generation) this.shell.behaviours.quiet();
      return;
    }
    this.shell.callerSaid(text, turn.startMs, turn.endMs || this.shell.callMs());
    this.answer(text);
  }

  // ------------------------------------------------------------------ barge-in

  /** The turn a barge-in interrupts now: the answer, or the greeting, reminder or goodbye being heard. */
  private cuttableTurn(): AgentTurn | null {
    const g = this.generation;
    if (g && g.turn.firstFrameAt !== null && !g.turn.dropped) return g.turn;
    const p = this.spoken.playing;
    // Contract §11: interruptible_greeting false keeps greetings, reminders and goodbyes playing.
    return p && (this.config.agent.interruptibleGreeting || !FIXED_PHRASES.has(p.kind)) ? p : null;
  }

  private onBargeIn(now: number): void {
    const turn = this.cuttableTurn();
    // Fillers and acknowledgements just stop (and a greeting that is not interruptible goes on).
    if (!turn) {
      if (this.fillerTurn) this.shell.audio.dropTurn(this.fillerTurn);
      return;
    }
    if (this.pending || this.bargedIn || this.pickup.judging) return;
    // A callee's "hello?" as they pick up is judged before the greeting is cut. The phone stops
    // at once all the same (`clear`: it would play the ~700 ms queued otherwise); what was
    // still ahead of the callee goes back to the front of the greeting, so if it was only that
    // word the greeting resumes from what was actually heard.
    if (this.pickup.begin(turn, now)) {
      this.shell.audio.pause(this.shell.line.leadSamples());
      this.shell.clearPlayback();
      return;
    }
    this.interrupt(turn, now);
  }

  /** A pickup word, or a judgement with nothing left to cut: the paused greeting goes on. */
  private resumeAfterPickup(): void {
    if (this.pending || !this.shell.audio.isPaused) return;
    // The word is not a turn: whatever the recognizer makes of it is let go, as after a backchannel.
    if (this.userTurn) {
      if (this.userTurn.finalTimer) clearTimeout(this.userTurn.finalTimer);
      if (this.userTurn.commitTimer) clearTimeout(this.userTurn.commitTimer);
      this.userTurn = null;
    }
    this.ignoreBackchannelUntil = this.shell.now() + IGNORE_BACKCHANNEL_MS;
    this.shell.audio.resume();
    this.shell.kick();
  }

  /** The caller spoke over `turn` from `onsetMs`: `interrupted` at once, then the turn is held or cut. */
  private interrupt(turn: AgentTurn, onsetMs: number): void {
    this.shell.send({ type: 'interrupted', heard: this.heard(turn) });
    this.shell.behaviours.busy();
    this.onSpeechStart(onsetMs);
    const interruption = this.shell.interruption;
    const tentative = this.config.agent.backchannel || interruption.minWords > 0;
    if (!tentative) return this.confirmBargeIn();
    // Hold the turn (what was still ahead of the caller is kept) and listen.
    this.shell.audio.pause(this.shell.line.leadSamples());
    this.shell.clearPlayback();
    this.pending = { onsetMs, spokeMs: null, timer: setTimeout(() => this.judgePending(true), interruption.falseInterruptionTimeoutMs) };
  }

  /** Decides a held barge-in: a short backchannel resumes the agent's turn, anything else stands. */
  private judgePending(final: boolean): void {
    const p = this.pending;
    if (!p) return;
    const text = this.userTurn ? this.userText(this.userTurn) : '';
    const now = this.shell.now();
    const spokeMs = p.spokeMs ?? now - p.onsetMs;
    const words = wordCount(text);
    const interruption = this.shell.interruption;
    if (interruption.minWords > 0 && words >= interruption.minWords && !isBackchannel(text)) return this.confirmBargeIn();
    if (spokeMs > interruption.backchannelMaxMs || (text && !isBackchannel(text))) return this.confirmBargeIn();
    const timedOut = now - p.onsetMs >= interruption.falseInterruptionTimeoutMs - 5;
    if (!final && !timedOut) return;
    if (p.spokeMs === null && !timedOut) return;
    if (!this.config.agent.backchannel && interruption.minWords > 0 && timedOut && p.spokeMs === null) return this.confirmBargeIn();
    // False interruption: the caller only acknowledged. Resume where the turn stopped.
    countFalseInterruption();
    clearTimeout(p.timer);
    this.pending = null;
    if (this.userTurn?.finalTimer) clearTimeout(this.userTurn.finalTimer);
    this.userTurn = null;
    this.ignoreBackchannelUntil = now + IGNORE_BACKCHANNEL_MS;
    this.shell.audio.resume();
    this.shell.kick();
  }

  private confirmBargeIn(): void {
    if (this.pending) {
      clearTimeout(this.pending.timer);
      this.pending = null;
    }
    this.bargedIn = true;
    const phrase = this.spoken.playing;
    const phraseHeard = phrase ? this.heard(phrase) : '';
    // The answer first (its history messages come after the phrase's); one queued behind the
    // phrase and never heard is simply dropped.
    this.cancelGeneration(this.generation?.turn.firstFrameAt != null, true);
    const cut = this.spoken.cut(phraseHeard);
    if (!cut) return;
    this.recordAssistant(cut, phraseHeard, true);
    if (cut.kind === 'goodbye') this.shell.goodbyeInterrupted();
  }

  /** Stops the current answer; `interrupted` keeps in the history what the caller heard. */
  private cancelGeneration(interrupted: boolean, byCaller = false): void {
    const g = this.generation;
    if (!g) return;
    this.generation = null;
    g.cancel();
    const heard = interrupted ? this.heard(g.turn) : '';
    this.shell.audio.dropAll();
    this.shell.clearPlayback();
    if (interrupted) {
      g.keepHeard(this.history, heard);
      if (heard) this.recordAssistant(g.turn, heard, byCaller);
    } else {
      g.forget(this.history);
    }
  }

  private heard(turn: AgentTurn): string {
    return turn.heardText(this.shell.line.leadSamples());
  }

  // ------------------------------------------------------------------ answers

  private answer(userText: string): void {
    if (this.shell.ending) return;
    this.cancelGeneration(false);
    this.history.push({ role: 'user', content: userText });
    const g = new Answer(new TurnSpeaker(this.config.adapters.tts!, this.shell.audio, new AgentTurn('answer'), this.speakerHooks));
    this.generation = g;
    this.answerDecidedAt = this.shell.now();
    this.shell.behaviours.awaitingAnswer();
    void g.generate(this.history, {
      llm: this.config.adapters.llm!,
      tools: toolsFor(this.config.agent),
      runToolCall: (call, signal, play) => this.shell.runToolCall(call, signal, play),
      failed: (err) => this.providerFailed(err, 'llm'),
      isCurrent: (answer) => this.generation === answer,
    });
  }

  private readonly speakerHooks: SpeakerHooks = {
    kick: () => this.shell.kick(),
    allow: (text) => {
      if (this.shell.takeChars(text.length)) return true;
      this.shell.overBudget(true);
      return false;
    },
    failed: (err) => this.providerFailed(err, 'tts'),
  };

  // ------------------------------------------------------------------ agent turns

  turnStarted(turn: AgentTurn): void {
    if (turn.kind !== 'answer') return;
    this.shell.behaviours.answerStarted();
    if (this.fillerTurn && this.fillerTurn !== turn) this.fillerTurn = null;
    if (this.onAnswerLatency && this.generation?.turn === turn) this.onAnswerLatency(this.shell.now() - this.answerDecidedAt);
  }

  turnSent(turn: AgentTurn): void {
    // Acknowledgements are not utterances; a filler is one, but not a turn of its own.
    if (turn.kind === 'acknowledgement' || turn.kind === 'dtmf') return;
    if (turn.kind === 'filler') {
      if (turn === this.fillerTurn) this.fillerTurn = null;
      return this.recordAssistant(turn, turn.text);
    }
    this.recordAssistant(turn, turn.text);
    this.spoken.sent(turn);
    // A turn that produced no audio at all (the model failed before speaking) is no turn.
    if (turn.queued > 0) this.shell.send({ type: 'turn_complete' });
    const g = this.generation;
    if (g && g.turn === turn) {
      this.generation = null;
      if (g.endCall) return this.shell.finish('agent_hangup');
    }
    if (turn.kind === 'goodbye' || turn.kind === 'reminder') return;
    if (!this.generation && !this.userTurn) this.shell.behaviours.quiet();
  }

  /** `interrupted`: the caller cut the turn short (its transcript entry says so). */
  private recordAssistant(turn: AgentTurn, text: string, interrupted = false): void {
    if (!text) return;
    this.shell.agentSaid(turn.firstFrameAt, text, interrupted);
    turn.reported = true;
  }

  deadAir(): void {
    const g = this.generation;
    if (!g || g.turn.firstFrameAt !== null || g.turn.queued > 0 || this.fillerTurn) return;
    this.fillerTurn = this.spoken.speak('filler', Phrases.filler);
  }

  idleWarn(): void {
    if (this.generation || this.userTurn || this.shell.ending) return;
    this.shell.behaviours.warned();
    this.spoken.speak('reminder', Phrases.idleReminder);
  }

  private maybeAcknowledge(now: number): void {
    const start = this.callerSpeechStartMs;
    if (start === null || this.generation || this.shell.audio.hasSpeech || this.pending) return;
    if (now - start < ACK_AFTER_MS || now - this.lastAckMs < ACK_AFTER_MS) return;
    if (this.shell.channel.vadState !== 'stopping') return;
    this.lastAckMs = now;
    this.spoken.speak('acknowledgement', Phrases.acknowledgement);
  }

  sayGoodbye(text: string): void {
    if (this.pending) clearTimeout(this.pending.timer);
    this.pending = null;
    this.cancelGeneration(this.generation?.turn.firstFrameAt != null);
    const turn = this.spoken.speak('goodbye', text);
    const finishWhenSent = () => {
      // A goodbye the caller cut is the shell's to settle (goodbyeInterrupted).
      if (turn.interrupted) return;
      if (turn.reported || turn.dropped) this.shell.finish(this.shell.goodbyeReason);
      else this.shell.after(50, finishWhenSent);
    };
    finishWhenSent();
  }

  // ------------------------------------------------------------------ provider failures

  /** Recoverable: an `error` frame and the call goes on; otherwise the call ends `provider_error`. */
  private providerFailed(err: unknown, stage: keyof typeof STAGE_WORDS): void {
    if (this.shell.stopped) return;
    const what = STAGE_WORDS[stage];
    const e = asProviderError(err, 'unknown', `${what} failed`);
    if (e.kind === 'aborted') return;
    this.shell.noteFailure(e, stage, `${what} failed`);
    if (e.recoverable && stage !== 'stt') {
      this.shell.reportError(e);
      const g = this.generation;
      if (g) {
        g.controller.abort();
        g.speaker.end();
      }
      return;
    }
    this.shell.fail(e);
  }
}
