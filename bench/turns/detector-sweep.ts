// npx tsx bench/turns/detector-sweep.ts [heldout|tuning] — the barge-in detector alone over the
// evaluation set's material, in simulated time and without sockets: each case is a fresh call
// (the worst case: the detector has learned nothing) whose agent starts an utterance after 1 s
// of line noise, with the caller cutting in 0–300 ms after the agent's first frame was played,
// at -15 to -40 dBFS, on clean, noisy and echo lines (the eval set's non-linear paths), at
// 16 kHz (web) and 8 kHz (carrier: the agent's audio and the reference at 8 kHz, what the
// loudspeaker plays and the mic μ-law coded, as in the evaluation). It also counts interruptions with the caller silent over
// 60 s of agent answers (3–6 s, 1.2 s apart) per line. Tune on `tuning`; report `heldout`.
// SWEEP_LATE=1: the cut-in comes later in the call instead, as in the live evaluation's later
// answers: the agent first plays answers (5-15 s of speech, 0.8-2 s apart) on the same line, the
// caller silent, then the caller cuts in 0-300 ms into the next one.
import { rng, synth, utterance, type EchoSpec, type NoiseKind } from './eval-audio.js';
import { MATERIAL, type Half } from './eval-set.js';
import { AGENT_RATE, FRAME_MS, SimLine } from './sim-line.js';

/** SWEEP_ONLY: a regular expression on `<rate>/<line>/<caller index>` (skips the false-interruption part). */
const ONLY = process.env.SWEEP_ONLY ? new RegExp(process.env.SWEEP_ONLY) : null;
const LATE = process.env.SWEEP_LATE === '1';
const LEAD_FRAMES = 3; // the pacer's 60 ms lead: a frame is pushed as reference 60 ms before it plays

interface Line { name: string; noise?: NoiseKind; echo?: EchoSpec }

function lines(seed: number): Line[] {
  const r = rng(seed);
  const out: Line[] = [{ name: 'clean' }, ...(['white', 'pink', 'babble', 'street', 'music'] as NoiseKind[]).map((n) => ({ name: n, noise: n }))];
  for (let i = 0; i < 8; i++) {
    const echo: EchoSpec = { erlDb: Math.round(6 + 34 * r()), delayMs: Math.round(20 + 380 * r()), clip: r() < 0.5, bandpass: r() < 0.5, mulaw: r() < 0.5, drift: r() < 0.5 };
    out.push({ name: `echo ${echo.delayMs}ms/-${echo.erlDb}dB${echo.clip ? ' clip' : ''}${echo.bandpass ? ' bp' : ''}${echo.mulaw ? ' mulaw' : ''}${echo.drift ? ' drift' : ''}`, echo });
  }
  return out;
}

/** One simulated call: agent utterances (reference pushed LEAD_FRAMES before played) and optional caller speech. */
export function run(rateHz: number, line: Line, agent: Int16Array[], gapMs: number | number[], caller: { atMs: number; pcm: Int16Array; answer?: number } | null, seed: number, loops: Map<string, Float32Array>, half: Half, jumps = false) {
  const sim = new SimLine(rateHz, line, seed, loops, half, `white/${rateHz}`);
  const agentN = (AGENT_RATE * FRAME_MS) / 1000;
  // The agent's frames on a timeline: 1 s silence, then utterances with gaps.
  const frames: (Int16Array | null)[] = new Array(50).fill(null);
  const starts: number[] = [];
  for (const [j, u] of agent.entries()) {
    starts.push(frames.length);
    for (let i = 0; i + agentN <= u.length; i += agentN) frames.push(u.subarray(i, i + agentN));
    const gap = typeof gapMs === 'number' ? gapMs : gapMs[j];
    for (let i = 0; i < gap / FRAME_MS; i++) frames.push(null);
  }
  const cutInto = starts[caller?.answer ?? 0];
  const total = caller ? Math.min(frames.length, cutInto + (caller.atMs + 3000) / FRAME_MS) : frames.length;
  const events: number[] = [];
  const callerFrom = caller ? cutInto + Math.round(caller.atMs / FRAME_MS) + LEAD_FRAMES : Infinity;
  let cut = Infinity;
  // Delay jumps (a stall somewhere between the reference and the loudspeaker: the far end ran
  // dry, then plays the rest later): every 10 s the echo comes 100-200 ms later, and 5 s after
  // that its buffer drains back (frames skipped).
  const jr = rng(seed ^ 0x5a11);
  let shift = 0;
  let jumpAt = -1;
  const jumped: number[] = [];
  const n = sim.n;
  for (let f = 0; f < total; f++) {
    if (jumps && f % 500 === 250) { jumpAt = f; shift = 5 + Math.round(5 * jr()); jumped.push(f); }
    if (jumps && f === jumpAt + 250) shift = 0;
    const ref = f < cut ? frames[f] : null;
    if (ref) sim.pushReference(ref);
    const p = f - LEAD_FRAMES - shift;
    const dry = shift > 0 && f < jumpAt + shift; // the far end plays silence, then resumes where it was
    const playedAgent = !dry && p >= 0 && p < cut ? frames[p] : null;
    const speaking = caller && f >= callerFrom ? caller : null;
    const raised = sim.frame(playedAgent, speaking ? (mic) => {
      const k = (f - callerFrom) * n;
      for (let i = 0; i < n && k + i < speaking.pcm.length; i++) mic[i] += speaking.pcm[k + i];
    } : undefined);
    if (raised) {
      events.push(f);
      if (caller && f >= callerFrom) cut = f; // the agent stops
    }
  }
  return { events, callerFrom, starts, jumped };
}

/** SWEEP_LATE: the answers played before the cut-in (5-15 s of speech) and the gaps after them; its own draws, so the trials are the fresh run's. */
function lateCall(c: number, answers: Int16Array[]) {
  const r = rng(0x1a7e + c);
  const wantMs = 5000 + 10_000 * r();
  const before: Int16Array[] = [];
  const gaps: number[] = [];
  for (let ms = 0, i = c; ms < wantMs; i++) {
    const a = answers[i % answers.length];
    before.push(a);
    gaps.push(Math.round(800 + 1200 * r()));
    ms += (a.length / AGENT_RATE) * 1000;
  }
  return { before, gaps };
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

export function sweep(half: Half) {
  const m = MATERIAL[half];
  const loops = new Map<string, Float32Array>();
  const agentAnswers = m.medium.map((t) => synth(t, m.agentVoice, AGENT_RATE));
  const greeting = synth(m.greeting, m.agentVoice, AGENT_RATE);
  const r = rng(half === 'tuning' ? 11 : 12);
  const out: string[] = [];
  for (const rateHz of [16000, 8000]) {
    const lat: number[] = [];
    const byLine = new Map<string, string[]>();
    let misses = 0;
    let pre = 0;
    const levels = [-15, -20, -25, -30, -35, -40];
    const fmt = (v: number) => (v === Infinity ? 'miss' : String(Math.round(v)));
    for (const line of lines(half === 'tuning' ? 5 : 6)) {
      for (let c = 0; c < 8; c++) {
        const voice = `${m.languages[c % m.languages.length]}+${m.variants[(c * 5) % m.variants.length]}`;
        const text = m.barge[c % m.barge.length].text;
        const level = line.noise ? -15 - 10 * r() : levels[c % levels.length];
        const u = utterance([text], voice, rateHz, 30 + Math.round(50 * r()), 140 + Math.round(60 * r()), level);
        const atMs = Math.round(300 * r());
        const late = lateCall(c, agentAnswers);
        if (ONLY && !ONLY.test(`${rateHz}/${line.name}/${c}`)) continue; // after the draws: the same trials as the full run
        const cutInto = c % 2 ? greeting : agentAnswers[c % agentAnswers.length];
        const res = LATE
          ? run(rateHz, line, [...late.before, cutInto], [...late.gaps, 1000], { atMs, pcm: u.pcm, answer: late.before.length }, c * 31 + 7, loops, half)
          : run(rateHz, line, [cutInto], 1000, { atMs, pcm: u.pcm }, c * 31 + 7, loops, half);
        const onset = res.callerFrom + u.onsetFrame;
        const hit = res.events.find((f) => f >= res.callerFrom);
        const preEmpted = res.events.some((f) => f < res.callerFrom);
        if (preEmpted) pre++;
        const ms = hit === undefined ? Infinity : (hit - onset) * FRAME_MS + FRAME_MS;
        if (hit === undefined) misses++;
        lat.push(ms);
        byLine.set(line.name, [...(byLine.get(line.name) ?? []), fmt(ms) + (preEmpted ? '!' : '')]);
      }
    }
    out.push(`${half} ${rateHz / 1000} kHz, ${LATE ? 'late in the call (after 5-15 s of agent speech)' : 'fresh call'}, cut-in 0-300 ms into the agent: ${lat.length} trials, p50 ${fmt(pct(lat, 0.5))}, p95 ${fmt(pct(lat, 0.95))}, max ${fmt(Math.max(...lat))}, ${misses} missed, ${pre} pre-empted (!: a false interruption before the cut-in)`);
    for (const [name, xs] of byLine) out.push(`   ${name.padEnd(40)} ${xs.join(' ')}`);
    if (ONLY || LATE) continue; // the false-interruption runs do not depend on the mode
    // False interruptions with the caller silent: 60 s of answers per line.
    const fa: string[] = [];
    let speech = 0;
    let count = 0;
    const ja: string[] = [];
    let jumpSpeech = 0;
    let jumpCount = 0;
    for (const line of lines(half === 'tuning' ? 5 : 6)) {
      const answers: Int16Array[] = [];
      let ms = 0;
      for (let i = 0; ms < 60_000; i++) {
        const a = agentAnswers[i % agentAnswers.length];
        answers.push(a);
        ms += (a.length / AGENT_RATE) * 1000 + 1200;
      }
      const res = run(rateHz, line, answers, 1200, null, 99, loops, half);
      speech += answers.reduce((s, a) => s + a.length / AGENT_RATE, 0);
      count += res.events.length;
      if (res.events.length) fa.push(`${line.name}: ${res.events.length}`);
      if (line.echo) {
        const j = run(rateHz, line, answers, 1200, null, 98, loops, half, true);
        jumpSpeech += answers.reduce((s, a) => s + a.length / AGENT_RATE, 0);
        jumpCount += j.events.length;
        if (j.events.length) ja.push(`${line.name}: ${j.events.length}`);
      }
    }
    out.push(`   false interruptions, caller silent, ${(speech / 60).toFixed(1)} min of agent speech: ${count}${fa.length ? ` (${fa.join('; ')})` : ''}`);
    out.push(`   false interruptions over echo with delay jumps (+100-200 ms every 10 s), ${(jumpSpeech / 60).toFixed(1)} min: ${jumpCount}${ja.length ? ` (${ja.join('; ')})` : ''}`);
  }
  return out.join('\n');
}

if (process.argv[1]?.endsWith('detector-sweep.ts')) console.log(sweep((process.argv[2] as Half) ?? 'tuning'));
