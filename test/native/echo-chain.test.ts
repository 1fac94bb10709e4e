// EchoChain (framer -> VAD -> resampler in one call) gives exactly what the three
// separate classes give, for any message split.
import t from 'tap';
import { EchoChain, Framer, NativeError, Resampler, Vad } from '../../src/audio/native.js';
import { rng } from './corpus.js';

function signal(n: number, seed: number): Buffer {
  const r = rng(seed);
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) {
    const burst = Math.floor(i / 4000) % 2 ? 9000 * Math.sin(i / 3.1) : 0;
    b.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(burst + 600 * (r() - 0.5)))), i * 2);
  }
  return b;
}

t.test('same frames, VAD and resampled output as Framer + Vad + Resampler', async (t) => {
  for (const [a, b] of [[16000, 24000], [8000, 16000], [16000, 16000], [24000, 16000], [8000, 24000]] as const) {
    const x = signal(a * 3, a + b);
    const chain = new EchoChain({ inRateHz: a, outRateHz: b, maxMessageBytes: 2048 });
    const framer = new Framer({ sampleRateHz: a, frameMs: 20 });
    const vad = new Vad({ sampleRateHz: a, frameMs: 20 });
    const rs = a === b ? null : new Resampler({ inRateHz: a, outRateHz: b, maxInputSamples: 4096 });
    const got: number[] = [], want: number[] = [];
    const states: string[] = [], wantStates: string[] = [];
    const r = rng(a * 7 + b);
    let frames = 0, wantFrames = 0;
    for (let o = 0; o < x.length; ) {
      const k = Math.min(x.length - o, 2 * Math.floor(r() * 1025));
      const msg = x.subarray(o, o + k);
      o += k;
      const n = chain.push(msg);
      for (let i = 0; i < n; i++) got.push(chain.output[i]);
      frames += chain.frames;
      if (chain.frames) states.push(`${chain.vadState}:${chain.probability.toFixed(6)}`);
      const f = framer.push(msg);
      wantFrames += f;
      for (let i = 0; i < f; i++) vad.process(framer.output.subarray(i * framer.frameSamples, (i + 1) * framer.frameSamples));
      if (f) wantStates.push(`${vad.state}:${vad.probability.toFixed(6)}`);
      const pcm = framer.output.subarray(0, f * framer.frameSamples);
      if (rs) {
        const m = rs.process(pcm);
        for (let i = 0; i < m; i++) want.push(rs.output[i]);
      } else for (const v of pcm) want.push(v);
    }
    t.equal(frames, wantFrames, `${a}->${b} frames`);
    t.same(states, wantStates, `${a}->${b} VAD per push`);
    t.equal(got.length, want.length, `${a}->${b} length`);
    t.ok(got.every((v, i) => v === want[i]), `${a}->${b} output bit-identical`);
    t.ok(states.some((s) => s.startsWith('speaking')), `${a}->${b} speech bursts are seen`);
  }
});

t.test('bad messages: stable codes, state untouched', async (t) => {
  const chain = new EchoChain({ inRateHz: 16000, outRateHz: 24000, maxMessageBytes: 2048 });
  t.throws(() => chain.push(new Uint8Array(3)), { code: 'VC_ERR_NATIVE_ODD_LENGTH' });
  t.throws(() => chain.push(new Uint8Array(2050)), { code: 'VC_ERR_NATIVE_OVERSIZED' });
  t.throws(() => new EchoChain({ inRateHz: 7000, outRateHz: 24000 }), NativeError);
  t.equal(chain.push(new Uint8Array(600)), 0, 'partial frame: nothing out yet');
  t.equal(chain.push(new Uint8Array(40)), 480, 'the frame completes: 20 ms at 24 kHz');
  t.equal(chain.frames, 1);
  t.ok(chain.stateBytes < 8 * 1024, `native state ${chain.stateBytes} B`);
  t.equal(chain.output.length >= 1921, true, 'output holds one 2 KiB message at 24 kHz');
});
