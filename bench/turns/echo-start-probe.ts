// npx tsx bench/turns/echo-start-probe.ts [tuning|heldout] — false interruptions at the start of a
// call over loud echo, on the spec's grid rather than the evaluation set's draws: a fresh call, the
// caller silent, the agent plays its greeting and then answers (1.2 s apart) for 20 s; the echo
// path's delay 100-400 ms and return loss 6-15 dB, plain or with each of the set's non-linear
// kinds (clip, band-pass, μ-law, drift), at 16 kHz (web) and 8 kHz (carrier). Until the agent's
// speech has reached every lag of the echo window, an echo arriving late cannot have been learned,
// so this is where a bound that assumes "no echo seen yet" fails. Prints per rate the calls with an
// interruption in their first utterance and in all, and when the first one came.
import { synth, type EchoSpec } from './eval-audio.js';
import { MATERIAL, type Half } from './eval-set.js';
import { AGENT_RATE, FRAME_MS } from './sim-line.js';
import { run } from './detector-sweep.js';

const DELAYS_MS = [100, 200, 250, 300, 350, 400];
const RETURN_LOSS_DB = [6, 9, 12, 15];
const KINDS: Partial<EchoSpec>[] = [{}, { clip: true }, { bandpass: true }, { mulaw: true }, { drift: true }];
const CALL_MS = 20_000;

export function echoStartProbe(half: Half): string {
  const m = MATERIAL[half];
  const greeting = synth(m.greeting, m.agentVoice, AGENT_RATE);
  const answers = m.medium.map((t) => synth(t, m.agentVoice, AGENT_RATE));
  const utterances = [greeting];
  for (let i = 0, ms = (greeting.length / AGENT_RATE) * 1000; ms < CALL_MS; i++) {
    utterances.push(answers[i % answers.length]);
    ms += (answers[i % answers.length].length / AGENT_RATE) * 1000 + 1200;
  }
  const greetingFrames = Math.ceil((greeting.length / AGENT_RATE) * 1000 / FRAME_MS);
  const loops = new Map<string, Float32Array>();
  const out: string[] = [];
  for (const rateHz of [16000, 8000]) {
    let calls = 0, inGreeting = 0, any = 0, events = 0;
    const firstMs: number[] = [];
    const worst: string[] = [];
    for (const delayMs of DELAYS_MS) {
      for (const erlDb of RETURN_LOSS_DB) {
        for (const kind of KINDS) {
          const echo: EchoSpec = { erlDb, delayMs, clip: false, bandpass: false, mulaw: false, drift: false, ...kind };
          const name = `${delayMs} ms -${erlDb} dB${Object.keys(kind).length ? ` ${Object.keys(kind)[0]}` : ''}`;
          const res = run(rateHz, { name, echo }, utterances, 1200, null, delayMs * 7 + erlDb, loops, half);
          calls++;
          events += res.events.length;
          if (!res.events.length) continue;
          any++;
          const first = res.events[0] - res.starts[0];
          if (first < greetingFrames + 20) inGreeting++;
          firstMs.push(first * FRAME_MS);
          worst.push(`${name} (${first * FRAME_MS} ms)`);
        }
      }
    }
    out.push(`${half} ${rateHz / 1000} kHz, ${calls} fresh calls (echo ${DELAYS_MS[0]}-${DELAYS_MS.at(-1)} ms, -${RETURN_LOSS_DB[0]} to -${RETURN_LOSS_DB.at(-1)} dB; caller silent): an interruption in the greeting in ${inGreeting}, in any of the call's ${utterances.length} utterances in ${any} (${events} in all)`);
    if (worst.length) out.push(`   first interruption: ${worst.join('; ')}`);
  }
  return out.join('\n');
}

if (process.argv[1]?.endsWith('echo-start-probe.ts')) console.log(echoStartProbe((process.argv[2] as Half) ?? 'tuning'));
