// What the agent says on its own, outside the model's answers. Short on purpose: each is
// synthesized once per call, when the call starts.
export const Phrases = {
  /** dead_air_seconds: the answer is late. */
  filler: 'One moment, please.',
  /** idle_warn_seconds: the caller has gone quiet. */
  idleReminder: 'Are you still there?',
  /** idle_hangup_seconds: ends the call. */
  idleGoodbye: "I haven't heard from you, so I'll end the call now. Goodbye.",
  /** max_duration_seconds: the call is about to be cut. */
  maxDurationGoodbye: "We've reached the time limit for this call. Thank you, goodbye.",
  /** backchannel: an acknowledgement during a long caller turn. */
  acknowledgement: 'Mm-hm.',
} as const;

/** What a caller says that does not ask for the floor (false-interruption recovery). */
const BACKCHANNEL_WORDS = new Set([
  'mm', 'mhm', 'mm-hm', 'mmhm', 'mm-hmm', 'uh-huh', 'uhhuh', 'hmm', 'hm', 'yeah', 'yes', 'yep', 'yup', 'ok', 'okay',
  'right', 'sure', 'aha', 'ah', 'oh', 'i', 'see', 'got', 'it', 'cool', 'alright', 'great', 'good', 'uh', 'um',
]);

/** True when `text` (a transcript) is only a backchannel ("mm-hm", "yeah right", "" too). */
export function isBackchannel(text: string): boolean {
  const words = text.toLowerCase().replace(/[^a-z\s'-]/g, ' ').split(/\s+/).filter(Boolean);
  return words.length <= 3 && words.every((w) => BACKCHANNEL_WORDS.has(w));
}

export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
