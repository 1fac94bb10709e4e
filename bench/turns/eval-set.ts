// The turn benchmark's evaluation set: callers, lines and scripts drawn from a seed, in two
// halves with disjoint caller voices and texts. The `tuning` half is built from what the
// barge-in defaults were tuned on (the voices of bench/turns/scenarios.ts and of the tune half
// of test/native/corpus.ts, and other voices of the same espeak-ng languages); the `heldout`
// half uses espeak-ng languages and variants that appear nowhere in the repository's tuning
// material, another agent voice and other answers. The held-out half is the headline.
import type { EchoSpec, NoiseKind, Talker } from './eval-audio.js';
import { NOISE_KINDS, rng } from './eval-audio.js';

export type Half = 'heldout' | 'tuning';
/** The load a phase of the evaluation runs under. */
export type LoadKind = 'quiet' | 'cpu' | 'stalls';
export const HALVES: Half[] = ['heldout', 'tuning'];
export type Path = 'web' | 'carrier';
export const PATHS: Path[] = ['web', 'carrier'];
/** Web: 16 kHz PCM both ways. Carrier: Twilio media streams, 8 kHz μ-law both ways. */
export const PATH_RATE_HZ: Record<Path, number> = { web: 16000, carrier: 8000 };

export type OnsetClass = 'approximant' | 'plosive' | 'fricative' | 'nasal' | 'vowel';

/** What a caller says to cut in, by the class of its first sound. */
export interface BargeText {
  text: string;
  onset: OnsetClass;
}

export interface HalfMaterial {
  /** espeak-ng languages and variants of the callers (a caller is language+variant). */
  languages: string[];
  variants: string[];
  barge: BargeText[];
  /** Turns a caller starts in silence. */
  prompts: string[];
  /** Sentences said with a 600 ms pause after the first part. */
  pauses: [string, string][];
  /** The agent: its espeak-ng voice, greeting, and answers (medium: ~4-6 s; long: ~20 s). */
  agentVoice: string;
  greeting: string;
  medium: string[];
  long: string;
  babble: { talkers: Talker[]; texts: string[] };
}

export const MATERIAL: Record<Half, HalfMaterial> = {
  tuning: {
    languages: ['en-us', 'en-gb', 'en-gb-x-rp'],
    variants: ['m1', 'm2', 'm3', 'm5', 'Andy', 'john', 'f2', 'f3', 'f4', 'Annie', 'Linda'],
    barge: [
      { text: 'Wait, stop please.', onset: 'approximant' },
      { text: 'Right, hang on a moment.', onset: 'approximant' },
      { text: 'But that is not what I meant.', onset: 'plosive' },
      { text: 'Can I ask something first?', onset: 'plosive' },
      { text: 'Pardon, could you say that again?', onset: 'plosive' },
      { text: 'Sorry, can I ask something?', onset: 'fricative' },
      { text: 'Hold on a second.', onset: 'fricative' },
      { text: 'Fine, but what about the fee?', onset: 'fricative' },
      { text: 'No, that is not what I asked.', onset: 'nasal' },
      { text: 'My question was about the refund.', onset: 'nasal' },
      { text: 'Actually, one more thing.', onset: 'vowel' },
      { text: 'Oh, I already did that.', onset: 'vowel' },
    ],
    prompts: ['I have a question about my order.', 'Could you tell me the balance on my account, please?', 'Can you check the delivery date for me?', 'I would like to change my appointment.'],
    pauses: [
      ['Could you please', 'check the balance on my card.'],
      ['I was hoping to', 'move my delivery to Friday.'],
    ],
    agentVoice: 'en-us+m1',
    greeting: 'Thank you for calling. How can I help you today?',
    medium: [
      'Let me check that for you. Your current balance is one hundred and twenty dollars.',
      'I can help you with that. Your order was sent on Monday and should arrive by Thursday.',
      'Of course. I have moved your appointment, and you will get a confirmation by email shortly.',
    ],
    long:
      'Thank you for calling. I can help you with bookings, payments and deliveries today. ' +
      'Let me check that for you. Your current balance is one hundred and twenty dollars. ' +
      'I have found three available times next week: Monday at ten, Wednesday at two, and Friday at four. ' +
      'Before we continue, I need to confirm your identity with a few short security questions.',
    babble: {
      talkers: [
        { voice: 'en-us+Michael', pitch: 35, speed: 165 },
        { voice: 'en-gb+female2', pitch: 60, speed: 180 },
        { voice: 'en-us+Denis', pitch: 45, speed: 150 },
        { voice: 'en-gb-x-rp+female3', pitch: 70, speed: 190 },
        { voice: 'en-us+Iven', pitch: 25, speed: 175 },
        { voice: 'en-gb+Steph3', pitch: 55, speed: 160 },
        { voice: 'en-us+Jacky', pitch: 40, speed: 200 },
        { voice: 'en-gb+Andrea', pitch: 65, speed: 170 },
      ],
      texts: [
        'So I told him the meeting was moved to Thursday, but he never reads his email.',
        'The new cafe on the corner does a really good lunch, you should try the soup.',
        'We drove up to the lake on Sunday and it rained the whole afternoon.',
        'Have you seen the figures for the third quarter? They look a lot better.',
        'My brother is moving to Leeds next month for a job at the hospital.',
        'I can never remember whether the bins go out on Tuesday or Wednesday.',
        'She said the printer on the second floor is broken again.',
        'If we leave at six we should miss most of the traffic on the bridge.',
      ],
    },
  },
  heldout: {
    languages: ['en-gb-scotland', 'en-029', 'en-us-nyc', 'en-gb-x-gbclan', 'en-gb-x-gbcwmd'],
    variants: ['Gene', 'Edward', 'Mike', 'Paul', 'Robert', 'Hugo', 'Lee', 'Zac', 'travis', 'Belinda', 'Auntie', 'Steph2', 'anika', 'grandma'],
    barge: [
      { text: 'Wait, stop, I have another question.', onset: 'approximant' },
      { text: 'Listen, that is the wrong account.', onset: 'approximant' },
      { text: 'Yes, but I need it sooner.', onset: 'approximant' },
      { text: 'Tell me the price first.', onset: 'plosive' },
      { text: 'Do you mean this week or next?', onset: 'plosive' },
      { text: 'Go back to the second option.', onset: 'plosive' },
      { text: 'Sorry to cut in, but that is wrong.', onset: 'fricative' },
      { text: 'Hold on, I want to change that.', onset: 'fricative' },
      { text: 'So what happens if I cancel?', onset: 'fricative' },
      { text: 'Thanks, but I already paid.', onset: 'fricative' },
      { text: 'No, I meant the other order.', onset: 'nasal' },
      { text: 'Never mind, just send it by post.', onset: 'nasal' },
      { text: 'Maybe we can do Tuesday instead.', onset: 'nasal' },
      { text: 'Actually, can we start over?', onset: 'vowel' },
      { text: 'Excuse me, I did not catch that.', onset: 'vowel' },
      { text: 'Is there a cheaper option?', onset: 'vowel' },
      { text: 'Um, one quick question.', onset: 'vowel' },
    ],
    prompts: ['Hello, I am calling about a parcel that never arrived.', 'Could I speak to someone about my bill?', 'What time do you open on Saturday?', 'I need to report a problem with my internet.'],
    pauses: [
      ['I would like to', 'change my order.'],
      ['Can you tell me', 'when the parcel will arrive?'],
      ['My account number is', 'four two seven nine.'],
    ],
    agentVoice: 'en-gb+f5',
    greeting: 'Hello, you are through to customer support. What can I do for you?',
    medium: [
      'Sure. The parcel left our warehouse yesterday, and the driver will call you before delivery.',
      'I understand. I have opened a ticket, and an engineer will contact you within two days.',
      'No problem. We are open from nine until five on Saturdays, and closed on Sundays.',
    ],
    long:
      'Thanks for waiting. I have your account open in front of me now, and I can see two recent orders. ' +
      'The first one was delivered last Tuesday to your home address. ' +
      'The second one is still with the courier, and the tracking shows it should arrive tomorrow before six in the evening. ' +
      'If you are not at home, the courier will leave it with a neighbour or at the local collection point.',
    babble: {
      talkers: [
        { voice: 'en-gb-scotland+Quincy', pitch: 30, speed: 170 },
        { voice: 'en-029+female4', pitch: 62, speed: 155 },
        { voice: 'en-us-nyc+victor', pitch: 48, speed: 185 },
        { voice: 'en-gb-x-gbclan+female1', pitch: 72, speed: 165 },
        { voice: 'en-gb-x-gbcwmd+Ed', pitch: 28, speed: 195 },
        { voice: 'en-gb-scotland+Alicia', pitch: 58, speed: 150 },
        { voice: 'en-029+Marco', pitch: 42, speed: 178 },
        { voice: 'en-us-nyc+shelby', pitch: 68, speed: 160 },
      ],
      texts: [
        'The conference was fine, but the hotel was miles away from everything.',
        'Could you pass me the folder with the contracts from last year?',
        'We planted tomatoes in April and they are finally turning red.',
        'I heard the manager is leaving at the end of the summer.',
        'There is a long queue at the post office every single lunchtime.',
        'My phone died halfway through the call, so I never heard the end.',
        'The concert starts at half past seven, so let us eat before.',
        'Somebody left the fridge door open and all the milk went off.',
      ],
    },
  },
};

/** The level of every background noise, dBFS RMS, and of the line's floor under everything. */
export const NOISE_DBFS = -30;
export const FLOOR_DBFS = -70;
/** The pause inside a caller's sentence (turn-taking). */
export const SENTENCE_PAUSE_MS = 600;

export type Line = { kind: 'clean' } | { kind: 'noise'; noise: NoiseKind } | { kind: 'echo'; echo: EchoSpec };

export function lineName(l: Line): string {
  if (l.kind === 'clean') return 'clean';
  if (l.kind === 'noise') return `noise ${l.noise}`;
  const e = l.echo;
  const extras = [e.clip && 'clip', e.bandpass && 'band-pass', e.mulaw && 'μ-law', e.drift && 'drift'].filter(Boolean).join('+');
  return `echo ${e.delayMs} ms -${e.erlDb} dB${extras ? ` ${extras}` : ''}`;
}

/** Condition group of a line: clean, echo, or the noise kind. */
export const lineGroup = (l: Line): string => (l.kind === 'noise' ? l.noise : l.kind);

export interface Caller {
  voice: string;
  pitch: number;
  speed: number;
  levelDbfs: number;
}

/** One step of a trial call's script. */
export type Step =
  /** Wait for the next agent utterance to start arriving, then cut in `offsetMs` after its first frame. */
  | { do: 'barge'; offsetMs: number; text: BargeText; window: 'first300' | 'mid' }
  /** Wait for the next agent utterance and let it play out. */
  | { do: 'listen' }
  /** Once the agent has been quiet `quietMs`, say a sentence with a 600 ms pause inside. */
  | { do: 'pause'; parts: [string, string]; quietMs: number };

export interface EvalCall {
  /** Unique within the set, e.g. `heldout/web/trials/07`. */
  id: string;
  half: Half;
  path: Path;
  /** `trials`: barge-in trials, pauses; `listener`: speaks only into silence over long answers (false barge-ins). */
  role: 'trials' | 'listener';
  /** Carrier sessions are phone calls, inbound or outbound; web sessions are `web`. */
  direction: 'web' | 'inbound' | 'outbound';
  caller: Caller;
  line: Line;
  seed: number;
  steps: Step[];
  /** Listener calls: how long the call lasts. */
  durationMs: number;
  prompts: string[];
}

export interface EvalSizes {
  /** Trial calls per path and half. */
  trialCalls: Record<Half, number>;
  /** Listener calls per path and half: one per noise kind plus this many echo paths, each `listenerMs` long. */
  listenerEcho: number;
  listenerMs: number;
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const uniform = (r: () => number, lo: number, hi: number) => lo + (hi - lo) * r();

function echoSpec(r: () => number): EchoSpec {
  return {
    erlDb: Math.round(uniform(r, 6, 40)),
    delayMs: Math.round(uniform(r, 20, 400) / 5) * 5,
    clip: r() < 0.5,
    bandpass: r() < 0.5,
    mulaw: r() < 0.5,
    drift: r() < 0.5,
  };
}

function caller(r: () => number, m: HalfMaterial, line: Line): Caller {
  // Speech under -30 dBFS noise stays 5-15 dB above it; elsewhere -15 to -40 dBFS.
  const level = line.kind === 'noise' ? uniform(r, -25, -15) : uniform(r, -40, -15);
  return { voice: `${pick(r, m.languages)}+${pick(r, m.variants)}`, pitch: Math.round(uniform(r, 20, 80)), speed: Math.round(uniform(r, 140, 200)), levelDbfs: Math.round(level * 10) / 10 };
}

/**
 * A trial call's script: cut into the greeting; three answers; let one play out and cut into
 * the reminder that follows; two more answers; one answer 0.8-1.2 s in (the issue's protocol,
 * reported apart); let one play out and say a sentence with a pause; cut into its answer.
 */
function script(r: () => number, m: HalfMaterial): Step[] {
  const barge = (window: 'first300' | 'mid' = 'first300'): Step => ({ do: 'barge', offsetMs: Math.round(window === 'mid' ? uniform(r, 800, 1200) : uniform(r, 0, 300)), text: pick(r, m.barge), window });
  return [
    barge(),
    barge(),
    barge(),
    barge(),
    { do: 'listen' },
    barge(),
    barge(),
    barge(),
    barge('mid'),
    { do: 'listen' },
    { do: 'pause', parts: pick(r, m.pauses), quietMs: Math.round(uniform(r, 700, 1100)) },
    barge(),
  ];
}

/** The whole set for `seed`: every call of both halves and paths. */
export function evalSet(seed: number, sizes: EvalSizes): EvalCall[] {
  const calls: EvalCall[] = [];
  for (const half of HALVES) {
    const m = MATERIAL[half];
    for (const path of PATHS) {
      const r = rng(seed ^ (half === 'heldout' ? 0x1111 : 0x2222) ^ (path === 'web' ? 0x30 : 0x40));
      const n = sizes.trialCalls[half];
      // Lines of the trial calls: 30% clean, 30% noise (each kind in turn), 40% echo.
      let noises = 0;
      for (let i = 0; i < n; i++) {
        const slot = i % 10;
        const line: Line = slot < 3 ? { kind: 'clean' } : slot < 6 ? { kind: 'noise', noise: NOISE_KINDS[noises++ % NOISE_KINDS.length] } : { kind: 'echo', echo: echoSpec(r) };
        calls.push({
          id: `${half}/${path}/trials/${String(i).padStart(2, '0')}`,
          half,
          path,
          role: 'trials',
          direction: path === 'web' ? 'web' : i % 2 === 0 ? 'inbound' : 'outbound',
          caller: caller(r, m, line),
          line,
          seed: Math.floor(r() * 2 ** 31),
          steps: script(r, m),
          durationMs: 0,
          prompts: m.prompts,
        });
      }
      const lines: Line[] = [...NOISE_KINDS.map((noise): Line => ({ kind: 'noise', noise })), ...Array.from({ length: sizes.listenerEcho }, (): Line => ({ kind: 'echo', echo: echoSpec(r) }))];
      for (const [i, line] of lines.entries()) {
        calls.push({
          id: `${half}/${path}/listener/${String(i).padStart(2, '0')}`,
          half,
          path,
          role: 'listener',
          direction: path === 'web' ? 'web' : i % 2 === 0 ? 'inbound' : 'outbound',
          caller: caller(r, m, line),
          line,
          seed: Math.floor(r() * 2 ** 31),
          steps: [],
          durationMs: sizes.listenerMs,
          prompts: m.prompts,
        });
      }
    }
  }
  return calls;
}

/**
 * Calls grouped into `slots` sequences run side by side (each slot places its calls one after
 * the other), longest first so the slots end together.
 */
export function slotsFor(calls: EvalCall[], slots: number): EvalCall[][] {
  // Measured: trial calls take ~42 s, ~155 s over babble (it cuts answers and holds turns
  // open); listener calls their length and the end of the answer then playing (~16 s).
  const est = (c: EvalCall) => (c.role === 'listener' ? c.durationMs + 16_000 : c.line.kind === 'noise' && c.line.noise === 'babble' ? 155_000 : 45_000);
  const out: { calls: EvalCall[]; ms: number }[] = Array.from({ length: Math.max(1, slots) }, () => ({ calls: [], ms: 0 }));
  for (const c of [...calls].sort((a, b) => est(b) - est(a) || a.id.localeCompare(b.id))) {
    const s = out.reduce((a, b) => (b.ms < a.ms ? b : a));
    s.calls.push(c);
    s.ms += est(c);
  }
  return out.filter((s) => s.calls.length).map((s) => s.calls);
}
