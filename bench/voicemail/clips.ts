// Labelled voicemail-beep clips, drawn from a seeded PRNG per half ('tune': the
// detector's constants were chosen looking at it; 'heldout': other seed, other
// greeting texts and espeak-ng voices). Positives: an optional spoken greeting, a
// pause, one beep (400-1,500 Hz, 150 ms-2 s, -10..-35 dBFS, some with weak
// harmonics), then quiet; all over white or pink noise at 5-30 dB SNR. Negatives:
// speech, sustained vowels, chords and melodies of instrument-like notes, legato
// melodies of pure sines, DTMF, US and UK ringback, busy tone, tones longer than
// 2 s, silence. A clip is a list of segments rendered at any rate (render.ts).
import { rng } from '../../test/native/corpus.js';

export type Half = 'tune' | 'heldout';
export type ClipKind =
  | 'beep' | 'speech' | 'vowel' | 'chord' | 'melody' | 'sine-melody' | 'dtmf' | 'ringback-us' | 'ringback-uk'
  | 'busy' | 'long-tone' | 'silence';

/** A partial: frequency (Hz) and amplitude relative to the note's level (linear). */
export interface Partial { hz: number; amp: number }

export type Segment =
  | { kind: 'gap'; ms: number }
  | { kind: 'speech'; text: string; voice: string; pitch: number; speed: number; gainDb: number }
  /** Sum of partials at levelDbfs (the first partial's amplitude re full scale); envelope shapes it. */
  | { kind: 'tone'; ms: number; partials: Partial[]; levelDbfs: number; rampMs: number; envelope: Envelope; beep?: true };

export type Envelope = 'flat' | 'pluck' | 'bowed';
type ToneSegment = Extract<Segment, { kind: 'tone' }>;

export interface Clip {
  id: string;
  half: Half;
  kind: ClipKind;
  segments: Segment[];
  noise: { kind: 'white' | 'pink'; levelDbfs: number; seed: number };
  /** Positives: the beep's parameters (its times come from rendering). */
  beep?: { hz: number; ms: number; levelDbfs: number; snrDb: number; harmonics: boolean };
}

const GREETINGS: Record<Half, string[]> = {
  tune: [
    'Hi, you have reached Sam. I cannot take your call right now, please leave a message after the tone.',
    'The person you are calling is not available. At the tone, please record your message.',
    'Hello, this is the Miller residence. Leave your name and number and we will call you back.',
    'You have reached the sales office. Our hours are nine to five. Please leave a message.',
    'Hey, it is Jordan. Leave a message.',
    'Thank you for calling. Nobody is available to take your call. Please leave a detailed message after the beep.',
  ],
  heldout: [
    'Hi, this is Alex. Sorry I missed you, leave a message and I will get back to you.',
    'The subscriber you have dialled is unavailable. Please leave your message after the signal.',
    'You have reached the front desk of the clinic. Please state your name and the reason for your call.',
    'Hello, you are through to Priya. I am away from my phone, so leave a message after the tone.',
    'We are closed for the holidays. Please leave a message and we will return your call next week.',
    'Hi there, it is Chris. You know what to do.',
  ],
};
const VOICES: Record<Half, string[]> = {
  tune: ['en-us', 'en-gb+f3', 'en-us+m3', 'en+f2', 'en-gb-x-rp+m5', 'en-us+f4'],
  heldout: ['en-gb-scotland', 'en-029+f1', 'en-us-nyc+m2', 'en-gb-x-gbclan+f5', 'en-gb-x-gbcwmd+m6', 'en+m4'],
};
// Sustained vowels and hums as espeak-ng phonemes ([[...]]) and spelled-out words, said slowly.
const VOWELS: Record<Half, string[]> = {
  tune: ['[[a::]]', '[[o::]]', '[[i::]]', 'Ahhhhhhhh', 'oooooooooh', '[[m::]]', '[[E::]]'],
  heldout: ['[[u::]]', '[[A::]]', '[[e::]]', 'eeeeeeeeee', 'Ohhhhhhhh', '[[n::]]', '[[O::]]'],
};
const PITCHES = [20, 45, 70, 95];
const SPEEDS = [80, 120, 170];

const SEEDS: Record<Half, number> = { tune: 1, heldout: 2 };
/** Clips per kind and half. */
export const COUNTS: Record<ClipKind, number> = {
  beep: 200, speech: 40, vowel: 40, chord: 20, melody: 20, 'sine-melody': 15, dtmf: 15, 'ringback-us': 12,
  'ringback-uk': 8, busy: 10, 'long-tone': 10, silence: 10,
};

const midiHz = (m: number) => 440 * 2 ** ((m - 69) / 12);
const flat = (hz: number): Partial[] => [{ hz, amp: 1 }];

export function makeClips(half: Half): Clip[] {
  const r = rng(SEEDS[half] * 7919);
  const uni = (a: number, b: number) => a + (b - a) * r();
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const int = (a: number, b: number) => Math.floor(uni(a, b + 1));
  const noise = (levelDbfs: number) => ({ kind: pick(['white', 'pink'] as const), levelDbfs, seed: int(1, 2 ** 30) });
  const speech = (text: string, gainDb = uni(-12, 0)): Segment => ({
    kind: 'speech', text, voice: pick(VOICES[half]), pitch: pick(PITCHES), speed: pick(SPEEDS), gainDb,
  });
  const gap = (ms: number): Segment => ({ kind: 'gap', ms });
  const tone = (ms: number, partials: Partial[], levelDbfs: number, envelope: Envelope = 'flat', rampMs = 5): ToneSegment =>
    ({ kind: 'tone', ms, partials, levelDbfs, rampMs, envelope });
  // Instrument-like partials: the 2nd harmonic at least -12 dB.
  const instrument = (f0: number): Partial[] => {
    const shape = pick(['saw', 'odd', 'soft'] as const);
    const out: Partial[] = [];
    for (let h = 1; h * f0 < 3800 && h <= 10; h++) {
      const amp = shape === 'saw' ? 1 / h : shape === 'odd' ? (h % 2 ? 1 / h : 0.3 / h) : 1 / h ** 1.3;
      out.push({ hz: h * f0, amp });
    }
    return out;
  };
  const noiseLevel = () => uni(-70, -40);
  const clips: Clip[] = [];
  const add = (kind: ClipKind, segments: Segment[], n: Clip['noise'], beep?: Clip['beep']) =>
    clips.push({ id: `${half}-${kind}-${clips.filter((c) => c.kind === kind).length}`, half, kind, segments, noise: n, beep });

  for (let i = 0; i < COUNTS.beep; i++) {
    const hz = uni(400, 1500), ms = Math.exp(uni(Math.log(150), Math.log(2000)));
    const levelDbfs = uni(-35, -10), snrDb = uni(5, 30), harmonics = r() < 0.25;
    const partials = harmonics ? [{ hz, amp: 1 }, { hz: 2 * hz, amp: 10 ** (-30 / 20) }, { hz: 3 * hz, amp: 10 ** (-35 / 20) }] : flat(hz);
    const lead: Segment[] = r() < 0.7 ? [gap(uni(100, 600)), speech(pick(GREETINGS[half]))] : [gap(uni(300, 1500))];
    const beepSeg: Segment = { ...tone(ms, partials, levelDbfs, 'flat', uni(2, 10)), beep: true };
    // Noise power re the beep's (A^2/2): the noise level is set so that beep/noise = snrDb.
    const nz = noise(levelDbfs - snrDb);
    add('beep', [...lead, gap(uni(200, 1200)), beepSeg, gap(1500)], nz, { hz, ms, levelDbfs, snrDb, harmonics });
  }
  for (let i = 0; i < COUNTS.speech; i++) {
    add('speech', [gap(300), speech(pick(GREETINGS[half])), gap(300), speech(pick(GREETINGS[half])), gap(800)], noise(noiseLevel()));
  }
  for (let i = 0; i < COUNTS.vowel; i++) {
    add('vowel', [gap(300), speech(pick(VOWELS[half])), gap(200), speech(pick(VOWELS[half])), gap(800)], noise(noiseLevel()));
  }
  for (let i = 0; i < COUNTS.chord; i++) {
    const segs: Segment[] = [gap(300)];
    for (let c = int(1, 4); c > 0; c--) {
      const root = int(50, 72), env = pick(['flat', 'pluck', 'bowed'] as const);
      const notes = pick([[0, 4, 7], [0, 3, 7], [0, 4, 7, 11], [0, 5, 9], [0, 7, 12]]);
      segs.push(tone(uni(300, 3000), notes.flatMap((st) => instrument(midiHz(root + st))), uni(-30, -12), env));
      segs.push(gap(uni(0, 400)));
    }
    add('chord', [...segs, gap(800)], noise(noiseLevel()));
  }
  for (const kind of ['melody', 'sine-melody'] as const) {
    for (let i = 0; i < COUNTS[kind]; i++) {
      const segs: Segment[] = [gap(300)];
      const env = kind === 'melody' ? pick(['flat', 'pluck', 'bowed'] as const) : 'flat';
      const lvl = uni(-30, -12);
      let m = int(62, 80);
      for (let k = int(5, 10); k > 0; k--) {
        m = Math.max(55, Math.min(88, m + pick([-5, -3, -2, -1, 1, 2, 3, 4, 7])));
        const f0 = midiHz(m);
        segs.push(tone(uni(150, 600), kind === 'melody' ? instrument(f0) : flat(f0), lvl, env, 3));
      }
      add(kind, [...segs, gap(1000)], noise(noiseLevel()));
    }
  }
  const DTMF_LOW = [697, 770, 852, 941], DTMF_HIGH = [1209, 1336, 1477, 1633];
  for (let i = 0; i < COUNTS.dtmf; i++) {
    const segs: Segment[] = [gap(300)];
    const lvl = uni(-25, -10), on = uni(70, 200), off = uni(50, 150);
    for (let k = int(3, 10); k > 0; k--) {
      segs.push(tone(on, [{ hz: pick(DTMF_LOW), amp: 1 }, { hz: pick(DTMF_HIGH), amp: 10 ** (uni(-4, 4) / 20) }], lvl));
      segs.push(gap(off));
    }
    add('dtmf', [...segs, gap(800)], noise(noiseLevel()));
  }
  const cadence = (kind: ClipKind, count: number, hz: [number, number], pattern: number[], cycles: [number, number]) => {
    for (let i = 0; i < count; i++) {
      const segs: Segment[] = [gap(uni(100, 500))];
      const lvl = uni(-30, -13);
      for (let c = int(...cycles); c > 0; c--) {
        pattern.forEach((ms, j) => segs.push(j % 2 ? gap(ms) : tone(ms, [{ hz: hz[0], amp: 1 }, { hz: hz[1], amp: 1 }], lvl)));
      }
      add(kind, segs, noise(noiseLevel()));
    }
  };
  cadence('ringback-us', COUNTS['ringback-us'], [440, 480], [2000, 4000], [1, 2]);
  cadence('ringback-uk', COUNTS['ringback-uk'], [400, 450], [400, 200, 400, 2000], [1, 3]);
  cadence('busy', COUNTS.busy, [480, 620], [500, 500], [3, 6]);
  for (let i = 0; i < COUNTS['long-tone']; i++) {
    add('long-tone', [gap(500), tone(uni(2500, 6000), flat(uni(400, 1500)), uni(-35, -10)), gap(1000)], noise(noiseLevel()));
  }
  for (let i = 0; i < COUNTS.silence; i++) {
    add('silence', [gap(3000)], r() < 0.3 ? { kind: 'white', levelDbfs: -200, seed: 1 } : noise(uni(-60, -30)));
  }
  return clips;
}
