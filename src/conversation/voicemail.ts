import type { AppContext } from '../shared/app-context.js';
import { BeepDetector, type Beep } from '../audio/beep-detector.js';
import { verdictOf, watchMachineDetection } from '../telephony/amd.js';
import type { CallConfig } from './call-config.js';
import type { CallShell } from './call-shell.js';
import { PhraseBook } from './phrase-book.js';

// Voicemail on an outbound call whose agent has a `voicemail` setting (contract §11). The call
// was placed with the carrier's answering-machine detection (telephony/amd.ts) and the
// conversation runs as usual until the verdict. A person: nothing changes. A machine (or fax):
//   hangup         → the conversation stops and the call ends `voicemail`;
//   leave_message  → the conversation stops (the greeting is cut, nothing is answered), the native
//                    beep detector listens to the line, and the message is said as soon as the beep
//                    ends (or when the carrier says the greeting is over, or after a fallback
//                    time without a beep); then the call ends `voicemail`.

/** Said anyway when no beep came this long after the machine verdict (some machines never beep). */
export const NO_BEEP_FALLBACK_MS = 10_000;
/** A beep heard this shortly before the machine verdict already ended the greeting. */
const RECENT_BEEP_MS = 3_000;

export interface VoicemailOptions {
  noBeepFallbackMs?: number;
  log?: { info: (o: object, m: string) => void };
}

type Setting = NonNullable<CallConfig['agent']['voicemail']>;

export class VoicemailMode {
  private state: 'conversation' | 'awaiting_beep' | 'leaving' | 'done' = 'conversation';
  private readonly beeps: BeepDetector | null;
  private lastBeep: { beep: Beep; at: number } | null = null;
  private unwatch: (() => void) | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly config: CallConfig,
    private readonly shell: CallShell,
    private readonly setting: Setting,
    private readonly opts: VoicemailOptions = {},
  ) {
    this.beeps = setting.action === 'leave_message' && setting.message ? new BeepDetector({ sampleRateHz: shell.line.procRateHz }) : null;
    // Caller audio flows once the call has started: only then can a verdict end it.
    shell.callerTap = (pcm, now) => this.hear(pcm, now);
    shell.signal.addEventListener('abort', () => this.unwatch?.(), { once: true });
  }

  private hear(pcm: Int16Array, now: number): void {
    if (!this.unwatch && this.state === 'conversation') this.unwatch = watchMachineDetection(this.ctx, this.config.sessionId, (v) => this.verdict(v));
    if (!this.beeps) return;
    const beep = this.beeps.process(pcm);
    if (!beep) return;
    this.lastBeep = { beep, at: now };
    this.opts.log?.info({ session_id: this.config.sessionId, frequency_hz: Math.round(beep.frequencyHz), beep_ms: Math.round(beep.endMs - beep.startMs) }, 'voicemail beep');
    if (this.state === 'awaiting_beep') this.leave('beep');
  }

  /** The carrier's AnsweredBy. */
  verdict(answeredBy: string): void {
    const v = verdictOf(answeredBy);
    if (!v || v === 'human' || this.state !== 'conversation' || this.shell.stopped) return;
    this.shell.machineAnswered();
    if (v === 'fax' || !this.beeps) {
      this.state = 'done';
      this.shell.callerTap = null;
      this.shell.finish('voicemail');
      return;
    }
    // Synthesized now, while the machine's greeting plays (the engine then finds it cached).
    if (this.config.adapters.tts) void new PhraseBook(this.config, this.shell.signal).get(this.setting.message!);
    if (v === 'machine_greeting_ended') return this.leave('greeting ended');
    if (this.lastBeep && this.shell.now() - this.lastBeep.at < RECENT_BEEP_MS) return this.leave('beep');
    this.state = 'awaiting_beep';
    this.shell.after(this.opts.noBeepFallbackMs ?? NO_BEEP_FALLBACK_MS, () => this.leave('no beep'));
  }

  private leave(why: string): void {
    if (this.state === 'leaving' || this.state === 'done') return;
    this.state = 'leaving';
    this.shell.callerTap = null;
    this.opts.log?.info({ session_id: this.config.sessionId, why }, 'leaving the voicemail message');
    this.shell.leaveMessage(this.setting.message!);
  }
}

/** Voicemail for a call that has a setting (outbound calls only: call-config leaves it null otherwise). */
export function attachVoicemail(ctx: AppContext, config: CallConfig, shell: CallShell, opts: VoicemailOptions = {}): VoicemailMode | null {
  const setting = config.agent.voicemail;
  return setting ? new VoicemailMode(ctx, config, shell, setting, opts) : null;
}
