// What the turn benchmark's callers do, shared by the orchestrator and the caller process.

/** The fake recogniser's transcript of any caller utterance with speech in it. */
export const CALLER_TEXT = 'I have a question about my order';
/** The agent's voice (espeak-ng) for the fake TTS. */
export const AGENT_VOICE = 'en-us+m1';
export const SHORT_ANSWER = 'Sure, I can help you with that.';
export const LONG_ANSWER =
  'Thank you for calling. I can help you with bookings, payments and deliveries today. ' +
  'Let me check that for you. Your current balance is one hundred and twenty dollars. ' +
  'I have found three available times next week: Monday at ten, Wednesday at two, and Friday at four. ' +
  'Before we continue, I need to confirm your identity with a few short security questions.';

export const RATE_IN_HZ = 16000;
export const RATE_OUT_HZ = 24000;

/** Caller turns: prompts before an answer, and what barging in callers say. */
export const PROMPTS: [string, string][] = [
  ['I have a question about my order.', 'en-us'],
  ['Could you tell me the balance on my account, please?', 'en-gb+f3'],
  ['Can you check the delivery date for me?', 'en-us+m3'],
  ['I would like to change my appointment.', 'en+f2'],
];
export const INTERRUPTIONS: [string, string][] = [
  ['Wait, stop please.', 'en-us'],
  ['Hold on a second.', 'en-gb+f3'],
  ['No, that is not what I asked.', 'en-us+m3'],
  ['Sorry, can I ask something?', 'en+f2'],
  ['Actually, one more thing.', 'en-us+f4'],
];

export type NoiseKind = 'white' | 'pink' | 'hum';

export interface Background {
  kind: NoiseKind;
  /** RMS level of the noise in dBFS (caller speech is about -20 dBFS active). */
  levelDbfs: number;
}

export interface EchoPath {
  delayMs: number;
  attenuationDb: number;
  /**
   * `scripted` (default): ScriptedCaller.enableEcho, a FIFO of received frames that advances
   * one frame per microphone frame while it holds more than the delay. `playout`: the frames
   * are played at real time from a playout queue (silence on underrun), resampled properly to
   * 16 kHz and echoed after a constant delay — the acoustic path of a real handset.
   */
  model?: 'scripted' | 'playout';
}

export type Scenario =
  /** Short answers; each caller turn measures endpointing decided → first answer frame. */
  | { kind: 'latency'; name: string }
  /** Long answers; the caller barges in 0.4–2 s into each. */
  | { kind: 'barge'; name: string; noise?: Background; echo?: EchoPath; warmup?: boolean }
  /** Long answers over continuous background noise and/or the agent's echo; any `interrupted` is false. */
  | { kind: 'false'; name: string; group: 'noise' | 'echo' | 'echo-playout'; noise?: Background; echo?: EchoPath };

export interface CallPlan {
  sessionId: string;
  url: string;
  scenario: Scenario;
  seed: number;
}

/** The benchmark's mix of concurrent callers (one session each). */
/** The echo paths of the false barge-in scenarios (and of the probe's stall runs). */
export const ECHO_PATHS: EchoPath[] = [
  { delayMs: 20, attenuationDb: 10 },
  { delayMs: 60, attenuationDb: 20 },
  { delayMs: 100, attenuationDb: 10 },
  { delayMs: 100, attenuationDb: 30 },
  { delayMs: 150, attenuationDb: 20 },
  { delayMs: 200, attenuationDb: 10 },
  { delayMs: 200, attenuationDb: 30 },
];

export function scenarioMix(scale: number): Scenario[] {
  const n = (k: number) => Math.max(1, Math.round(k * scale));
  const out: Scenario[] = [];
  for (let i = 0; i < n(12); i++) out.push({ kind: 'latency', name: 'latency' });
  for (let i = 0; i < n(4); i++) out.push({ kind: 'barge', name: 'barge-in' });
  for (let i = 0; i < n(2); i++) out.push({ kind: 'barge', name: 'barge-in after one whole answer', warmup: true });
  out.push({ kind: 'barge', name: 'barge-in, echo 100 ms/-20 dB + pink -45 dBFS', echo: { delayMs: 100, attenuationDb: 20 }, noise: { kind: 'pink', levelDbfs: -45 } });
  out.push({ kind: 'barge', name: 'barge-in, echo 40 ms/-10 dB', echo: { delayMs: 40, attenuationDb: 10 } });
  const noises: Background[] = [
    { kind: 'white', levelDbfs: -50 },
    { kind: 'white', levelDbfs: -40 },
    { kind: 'pink', levelDbfs: -45 },
    { kind: 'pink', levelDbfs: -35 },
    { kind: 'hum', levelDbfs: -40 },
    { kind: 'hum', levelDbfs: -30 },
  ];
  for (const noise of noises) out.push({ kind: 'false', group: 'noise', name: `noise ${noise.kind} ${noise.levelDbfs} dBFS`, noise });
  for (const echo of ECHO_PATHS) out.push({ kind: 'false', group: 'echo', name: `echo ${echo.delayMs} ms -${echo.attenuationDb} dB`, echo });
  out.push({ kind: 'false', group: 'echo', name: 'echo 120 ms -15 dB + pink -45 dBFS', echo: { delayMs: 120, attenuationDb: 15 }, noise: { kind: 'pink', levelDbfs: -45 } });
  // The same paths through a constant-delay playout model (diagnostic: is it the engine or the echo model?).
  if (process.env.BENCH_PLAYOUT_ECHO !== '0') {
    for (const echo of ECHO_PATHS) out.push({ kind: 'false', group: 'echo-playout', name: `echo ${echo.delayMs} ms -${echo.attenuationDb} dB (playout)`, echo: { ...echo, model: 'playout' } });
  }
  return out;
}
