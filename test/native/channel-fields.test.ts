// MediaChannel's per-message summary is named once (native/include/vc/channel_fields.h)
// and the addon exports name -> index; the facade reads it by name. A known run gives
// the expected value under each name (recorded before the fields were named, when
// the positions were kept in step by hand).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import t from 'tap';
import { ChannelEvents, MediaChannel, VAD_STATES } from '../../src/audio/native.js';
import type { VcNativeAddon } from '../../src/audio/native-addon.js';

const addon = createRequire(import.meta.url)(join(process.cwd(), 'build', 'Release', 'vc_native.node')) as VcNativeAddon;
const NAMES = ['events', 'vadState', 'probability', 'callerProbability', 'speechStartMs', 'speechEndMs', 'interruptionMs', 'agentActive'];
const R = 16000;
const MSG = 640;  // samples per message: 40 ms, two frames

t.test('the addon names each info slot once', async (t) => {
  const f = addon.channelFields;
  t.ok(Object.isFrozen(f));
  t.same(Object.keys(f).sort(), [...NAMES].sort(), 'exactly these fields (add a new one to this test and to native.ts)');
  t.same(Object.values(f).sort((a, b) => a - b), NAMES.map((_, i) => i), 'dense, distinct indices');
  const raw = new addon.MediaChannel({ inRateHz: R, procRateHz: R, refRateHz: R });
  t.equal(raw.info.length, NAMES.length);
});

/** Deterministic voiced sound: 12 harmonics of f0 with a 4 Hz envelope, plus a little noise. */
function voiced(n: number, f0: number, amp: number, t0: number, rnd: () => number): Int16Array {
  const x = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const s = (t0 + i) / R;
    let v = 0;
    for (let h = 1; h <= 12; h++) v += Math.sin(2 * Math.PI * f0 * h * s + h) / h;
    v *= amp * (0.6 + 0.4 * Math.sin(2 * Math.PI * 4 * s));
    x[i] = Math.max(-32768, Math.min(32767, Math.round(v + 60 * (rnd() - 0.5))));
  }
  return x;
}

t.test('a known run gives the expected value under each name', async (t) => {
  let seed = 1;
  const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const opts = { inRateHz: R, procRateHz: R, refRateHz: R, frameMs: 20, maxMessageBytes: 4096 } as const;
  const ch = new MediaChannel(opts);
  const raw = new addon.MediaChannel({ ...opts, quality: 1 });  // fed the same: its slots checked by name
  // The agent talks 800-2400 ms (a faint echo reaches the mic); the caller talks over it 1500-2600 ms.
  // Re-recorded when the barge-in detector got its per-band double-talk test (it reports 80 ms
  // sooner), and with its envelope test and kept echo delay (rounds 4-5: the caller's spurt is
  // judged over 40 ms later, at 2,960 ms instead of 2,920), and when evidence far over the bar
  // came to count for more (round 15: the interruption is raised at 1,720 ms instead of 1,800),
  // and when lags the agent's speech reached after the caller started left the bound (round 20:
  // the caller's probability at 2,960 ms 0.1576 -> 0.1565), and when a stretch that keeps its
  // peak's band shape as it falls came to count as a struck chord's decay when loudest within its
  // first three hops (round 41: this caller is a steady harmonic tone with a 4 Hz swell, not a
  // voice, and is heard at 1,800 ms instead of 1,720).
  const want: Record<number, Record<string, number | string | boolean>> = {
    1800: { events: ChannelEvents.interruption, vadState: 'speaking', probability: 1, callerProbability: 1,
      speechStartMs: 800, speechEndMs: -1, interruptionMs: 1520, agentActive: true },
    2960: { events: ChannelEvents.interruptionEnd, vadState: 'stopping', probability: 0.1416, callerProbability: 0.1565,
      speechStartMs: 800, speechEndMs: -1, interruptionMs: 1520, agentActive: true },
    3120: { events: ChannelEvents.speechEnd, vadState: 'quiet', probability: 0.1418, callerProbability: 0.1442,
      speechStartMs: 800, speechEndMs: 2740, interruptionMs: 1520, agentActive: false },
  };
  let seen = 0;
  for (let o = 0; o < 4 * R; o += MSG) {
    const ms = o / (R / 1000);
    const agent = ms >= 800 && ms < 2400;
    const ref = agent ? voiced(MSG, 210, 5000, o, rnd) : null;
    const mic = ms >= 1500 && ms < 2600 ? voiced(MSG, 120, 9000, o, rnd) : new Int16Array(MSG).map(() => Math.round(60 * (rnd() - 0.5)));
    if (ref) {
      ch.pushReference(ref);
      raw.pushReference(ref);
      const echo = voiced(MSG, 210, 300, o, rnd);
      for (let i = 0; i < MSG; i++) mic[i] += echo[i];
    }
    t.equal(ch.process(new Uint8Array(mic.buffer)), 2);
    raw.process(new Uint8Array(mic.buffer));
    for (const name of NAMES) {
      const got = ch[name as keyof MediaChannel];
      const slot = raw.info[addon.channelFields[name]];
      const same = typeof got === 'boolean' ? Number(got) === slot : typeof got === 'string' ? got === VAD_STATES[slot] : got === slot;
      if (!same) t.fail(`${ms} ms: ${name} reads slot ${addon.channelFields[name]}`);
    }
    const w = want[ms];
    if (!w) continue;
    seen++;
    for (const [name, v] of Object.entries(w)) {
      const got = ch[name as keyof MediaChannel];
      if (name.endsWith('robability')) t.ok(Math.abs((got as number) - (v as number)) < 1e-3, `${ms} ms ${name} ${got} ~ ${v}`);
      else t.equal(got, v, `${ms} ms ${name}`);
    }
  }
  t.equal(seen, 3);
});
