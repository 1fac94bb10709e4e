// npm run bench:native: CPU of the inbound chain as MediaChannel.process runs it (resample +
// VAD + echo-aware barge-in, one timed call per 20 ms frame, real speech with real echo and
// the agent's audio pushed as reference), per-stage CPU on real frames against
// speex-resampler (WASM), WebRTC VAD (fvad-wasm) and Silero (onnxruntime-node), VAD accuracy
// per noise type and SNR on both corpus halves, and barge-in false alarms on pure echo.
// BENCH_ALT_NATIVE=/path/to/vc_native.node adds another build of the addon (e.g. the
// committed code built elsewhere) to the chain timing, the accuracy and the echo tables, in
// the same run and interleaved frame by frame. Writes bench/results/native.json (BENCH_OUT: another
// file); a --quick run writes only to BENCH_OUT, so that it does not replace the committed full run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import SR from 'speex-resampler';
import { BargeInDetector, EchoChain, Framer, G711, MediaChannel, Resampler, Vad, nativeDebug } from '../../src/audio/native.js';
import type { VcNativeAddon } from '../../src/audio/native-addon.js';
import {
  ALL_NOISE_KINDS, FRAME_MS, HALVES, agentTrack, echoOf, f1, halfTrack, median, mix, noise, noiseSeed, onsetLatenciesMs,
  rocAuc, speechTrack, toInt16,
} from '../../test/native/corpus.js';
import { SileroVad, WebRtcScore, WebRtcVad } from './baselines.js';

const Speex: any = (SR as any).default ?? SR;
const quick = process.argv.includes('--quick');
// --only=chain,echo runs some sections (development runs); results are written only for a full run.
const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7).split(',');
const run = (section: string) => !only || only.includes(section);
const ALT_PATH = process.env.BENCH_ALT_NATIVE;
const ALT_NAME = process.env.BENCH_ALT_NAME ?? 'before';
const alt = ALT_PATH ? (createRequire(import.meta.url)(ALT_PATH) as VcNativeAddon) : null;

/** ns per call: best and median of batch means (stage micro-benchmarks). */
function time(fn: () => unknown, batch = 50, reps = quick ? 200 : 2000): { bestNs: number; medianNs: number } {
  for (let i = 0; i < batch; i++) fn();
  const m: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) fn();
    m.push(Number(process.hrtime.bigint() - t0) / batch);
  }
  return { bestNs: Math.min(...m), medianNs: median(m) };
}

/** Same for async calls (Silero's session.run). */
async function timeAsync(fn: () => Promise<unknown>, batch: number, reps: number) {
  for (let i = 0; i < batch; i++) await fn();
  const m: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) await fn();
    m.push(Number(process.hrtime.bigint() - t0) / batch);
  }
  return { bestNs: Math.min(...m), medianNs: median(m) };
}

const quantile = (x: Float64Array | number[], q: number) => {
  const s = Float64Array.from(x).sort();
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const dist = (ns: Float64Array | number[]) => ({
  frames: ns.length, medianNs: quantile(ns, 0.5), p90Ns: quantile(ns, 0.9), p99Ns: quantile(ns, 0.99),
  meanNs: Array.from(ns).reduce((a, b) => a + b, 0) / ns.length,
});

/** Tiles x (or cuts it) to n samples. */
function fit(x: Float32Array, n: number): Float32Array {
  const out = new Float32Array(n);
  for (let o = 0; o < n; o += x.length) out.set(x.subarray(0, Math.min(x.length, n - o)), o);
  return out;
}

/**
 * A call at inRate: the caller (tuning-half speech) over the agent's echo (100 ms, -20 dB,
 * low-passed) and hiss; the reference is the agent's audio at refRate, frame for frame.
 */
function callAudio(inRate: number, refRate: number) {
  const caller = halfTrack('tune', inRate);
  const n = caller.pcm.length;
  const agentIn = fit(agentTrack(inRate).pcm, n);
  const echo = echoOf(agentIn, inRate, 100, 20);
  const hiss = noise('white', n, inRate, 5);
  const mic = toInt16(caller.pcm.map((v, i) => v + echo[i] + 30 * hiss[i]));
  const fsIn = inRate / 50, fsRef = refRate / 50, frames = Math.floor(n / fsIn);
  const ref = toInt16(fit(agentTrack(refRate).pcm, frames * fsRef));
  const msgs = Array.from({ length: frames }, (_, f) => Buffer.from(mic.buffer, 2 * f * fsIn, 2 * fsIn));
  const refs = Array.from({ length: frames }, (_, f) => ref.subarray(f * fsRef, (f + 1) * fsRef));
  const mic16 = Array.from({ length: frames }, (_, f) => mic.subarray(f * fsIn, (f + 1) * fsIn));
  return { msgs, refs, mic: mic16, frames };
}

/** Real frames of corpus speech in pink noise (20 dB) at a rate, for the stage rows. */
function speechFrames(rate: number): Int16Array[] {
  const t = speechTrack(rate);
  const x = mix(t, 'pink', 20);
  const fs = rate / 50;
  return Array.from({ length: Math.floor(x.length / fs) }, (_, f) => x.subarray(f * fs, (f + 1) * fs));
}
const cycle = <T>(xs: T[]) => { let i = 0; return () => xs[i++ % xs.length]; };

async function stages() {
  await Speex.initPromise;
  const rows: Record<string, { bestNs: number; medianNs: number }> = {};
  const f16 = speechFrames(16000), next16 = cycle(f16);
  const msgs16 = f16.map((x) => Buffer.from(x.buffer, x.byteOffset, x.byteLength)), nextMsg16 = cycle(msgs16);
  const fr = new Framer({ sampleRateHz: 16000, frameMs: 20 });
  rows['framer 16k (640 B message)'] = time(() => fr.push(nextMsg16()));
  for (const [a, b] of [[8000, 16000], [16000, 8000], [16000, 24000], [24000, 16000], [44100, 16000], [48000, 16000]]) {
    const next = cycle(a === 16000 ? f16 : speechFrames(a));
    const r = new Resampler({ inRateHz: a, outRateHz: b, maxInputSamples: Math.ceil(a / 50) });
    rows[`resample ${a / 1000}k->${b / 1000}k`] = time(() => r.process(next()));
  }
  const simd = nativeDebug.resamplerSimd();
  for (const level of ['avx2', 'generic'] as const) {
    if (level === simd || nativeDebug.resamplerSimd(level) !== level) continue;
    const r = new Resampler({ inRateHz: 16000, outRateHz: 24000, maxInputSamples: 320 });
    rows[`resample 16k->24k (${level} kernel)`] = time(() => r.process(next16()));
    nativeDebug.resamplerSimd(simd as 'avx512' | 'avx2' | 'generic');
  }
  const r3 = new Resampler({ inRateHz: 16000, outRateHz: 24000, quality: 'low', maxInputSamples: 320 });
  rows['resample 16k->24k (low: 60 dB)'] = time(() => r3.process(next16()));
  const r4 = new Resampler({ inRateHz: 16000, outRateHz: 24000, quality: 'fast', maxInputSamples: 320 });
  rows['resample 16k->24k (fast: alias-free passband, 80 dB)'] = time(() => r4.process(next16()));
  for (const q of [3, 5]) {
    const s = new Speex(1, 16000, 24000, q);
    rows[`speex-resampler q${q} 16k->24k (WASM)`] = time(() => s.processChunk(nextMsg16()));
  }
  for (const rate of [8000, 16000]) {
    const v = new Vad({ sampleRateHz: rate, frameMs: 20 });
    const next = rate === 16000 ? next16 : cycle(speechFrames(rate));
    rows[`VAD ${rate / 1000}k`] = time(() => v.process(next()));
    if (alt) {
      const va = new alt.Vad({ sampleRateHz: rate, frameMs: 20 });
      rows[`VAD ${rate / 1000}k (${ALT_NAME})`] = time(() => va.process(next()));
    }
    const w = await WebRtcVad.create(rate, 20, 3);
    rows[`WebRTC VAD ${rate / 1000}k (fvad-wasm)`] = time(() => w.process(next()));
  }
  // The echo pipeline's inbound path per 640 B message: one native call vs the three classes.
  const chain = new EchoChain({ inRateHz: 16000, outRateHz: 24000, maxMessageBytes: 2048 });
  rows['echo chain 16k->24k (640 B message: frame + VAD + resample, one call)'] = time(() => chain.push(nextMsg16()));
  const fr3 = new Framer({ sampleRateHz: 16000, frameMs: 20, maxMessageBytes: 2048 });
  const v3 = new Vad({ sampleRateHz: 16000, frameMs: 20 });
  const rs3 = new Resampler({ inRateHz: 16000, outRateHz: 24000, maxInputSamples: 1280 });
  const one = fr3.output.subarray(0, 320);
  rows['Framer + Vad + Resampler 16k->24k (same, three calls)'] = time(() => { fr3.push(nextMsg16()); v3.process(one); rs3.process(one); });
  // Barge-in on a real call: the caller over the agent's echo, the agent's audio as reference.
  const call = callAudio(16000, 16000);
  const bi = new BargeInDetector({ micRateHz: 16000, refRateHz: 16000, frameMs: 20 });
  let k = 0;
  rows['barge-in 16k (incl. VAD; caller over real echo, 100 ms / -20 dB)'] = time(() => {
    const f = k++ % call.frames;
    return bi.process(call.mic[f], call.refs[f]);
  });
  if (alt) {
    const ba = new alt.BargeIn({ micRateHz: 16000, refRateHz: 16000, frameMs: 20 });
    let j = 0;
    rows[`barge-in 16k (incl. VAD; caller over real echo, 100 ms / -20 dB) (${ALT_NAME})`] = time(() => {
      const f = j++ % call.frames;
      return ba.process(call.mic[f], call.refs[f]);
    });
  }
  const sil = await SileroVad.create();
  const x16 = mix(speechTrack(16000), 'pink', 20);
  let c = 0;
  const s = await timeAsync(() => { const o = (c++ * 512) % (x16.length - 512); return sil.process(x16.subarray(o, o + 512)); }, 100, quick ? 5 : 15);
  rows['Silero v5 16k (onnxruntime-node, per 20 ms)'] = { bestNs: (s.bestNs * 20) / 32, medianNs: (s.medianNs * 20) / 32 };
  const law = new Uint8Array(160), back = new Int16Array(160), next8 = cycle(speechFrames(8000));
  rows['G.711 mu-law encode 8k'] = time(() => G711.mulawEncode(next8(), law));
  rows['G.711 mu-law decode 8k'] = time(() => G711.mulawDecode(law, back));
  rows['G.711 A-law encode 8k'] = time(() => G711.alawEncode(next8(), law));
  const memory = {
    resampler16to24StateBytes: rs3.stateBytes,
    echoChain16to24StateBytes: chain.stateBytes,
    sharedTables: nativeDebug.resamplerTables(),
  };
  return { simd, rows, memory };
}

/** Channel configurations: caller rate -> processing rate, agent (reference) rate. */
const CHAIN_CONFIGS = [
  { inRateHz: 8000, procRateHz: 8000, refRateHz: 8000, note: 'telephony: no resampling' },
  { inRateHz: 16000, procRateHz: 16000, refRateHz: 24000, note: '' },
  { inRateHz: 24000, procRateHz: 16000, refRateHz: 24000, note: '' },
  { inRateHz: 48000, procRateHz: 16000, refRateHz: 48000, note: '' },
  { inRateHz: 8000, procRateHz: 16000, refRateHz: 24000, note: 'as in earlier runs' },
] as const;

interface Chan { pushReference(pcm: Int16Array): void; process(m: Uint8Array): number }

/**
 * The chain as a call runs it: per 20 ms frame pushReference(agent audio) then process(caller
 * message), each timed on its own (process = resample + frame + VAD + barge-in, one native call).
 * With an alternative build the two channels take the same frames, alternating which goes first.
 */
function chainTiming() {
  const passes = quick ? 2 : 8;
  // Timer cost: two hrtime.bigint() calls around nothing.
  const empty = new Float64Array(20000);
  for (let i = 0; i < empty.length; i++) { const t0 = process.hrtime.bigint(); empty[i] = Number(process.hrtime.bigint() - t0); }
  const out: any[] = [];
  for (const cfg of CHAIN_CONFIGS) {
    const call = callAudio(cfg.inRateHz, cfg.refRateHz);
    const opts = { inRateHz: cfg.inRateHz, procRateHz: cfg.procRateHz, refRateHz: cfg.refRateHz, frameMs: 20 as const, maxMessageBytes: 2048 };
    const builds: { name: string; ch: Chan; proc: Float64Array; push: Float64Array }[] = [];
    const n = call.frames * passes;
    builds.push({ name: 'ours', ch: new MediaChannel(opts), proc: new Float64Array(n), push: new Float64Array(n) });
    if (alt) {
      const raw = new alt.MediaChannel({ ...opts, quality: 1 });
      const ch: Chan = {
        pushReference: (pcm) => { if (raw.pushReference(pcm) < 0) throw new Error('alt pushReference'); },
        process: (m) => { const r = raw.process(m); if (r < 0) throw new Error('alt process'); return r; },
      };
      builds.push({ name: ALT_NAME, ch, proc: new Float64Array(n), push: new Float64Array(n) });
    }
    // Warm-up: one pass untimed (also lets the barge-in learn the echo path, as in a call).
    for (let f = 0; f < call.frames; f++) for (const b of builds) { b.ch.pushReference(call.refs[f]); b.ch.process(call.msgs[f]); }
    for (let i = 0; i < n; i++) {
      const f = i % call.frames;
      for (let j = 0; j < builds.length; j++) {
        const b = builds[(i + j) % builds.length];
        let t0 = process.hrtime.bigint();
        b.ch.pushReference(call.refs[f]);
        b.push[i] = Number(process.hrtime.bigint() - t0);
        t0 = process.hrtime.bigint();
        b.ch.process(call.msgs[f]);
        b.proc[i] = Number(process.hrtime.bigint() - t0);
      }
    }
    const row: any = { ...cfg, callFrames: call.frames, passes };
    for (const b of builds) row[b.name] = { process: dist(b.proc), pushReference: dist(b.push) };
    out.push(row);
  }
  return { timerNs: dist(empty), configs: out };
}

/** Baselines on the same real frames, one timed call per frame (WebRTC VAD, speex + WebRTC, Silero). */
async function baselineTiming() {
  await Speex.initPromise;
  const passes = quick ? 1 : 4;
  const call16 = callAudio(16000, 16000), call24 = callAudio(24000, 24000);
  const w = await WebRtcVad.create(16000, 20, 3);
  const web = new Float64Array(call16.frames * passes);
  for (let i = 0; i < web.length; i++) {
    const t0 = process.hrtime.bigint();
    w.process(call16.mic[i % call16.frames]);
    web[i] = Number(process.hrtime.bigint() - t0);
  }
  // speex 24k->16k (q5, WASM) + WebRTC VAD 16k: resample + VAD with no echo handling.
  const sp = new Speex(1, 24000, 16000, 5);
  const w2 = await WebRtcVad.create(16000, 20, 3);
  const both = new Float64Array(call24.frames * passes);
  let pending = new Int16Array(0);
  for (let i = 0; i < both.length; i++) {
    const t0 = process.hrtime.bigint();
    const o: Buffer = sp.processChunk(call24.msgs[i % call24.frames]);
    const s = new Int16Array(o.buffer, o.byteOffset, o.byteLength >> 1);
    const joined = new Int16Array(pending.length + s.length);
    joined.set(pending); joined.set(s, pending.length);
    let k = 0;
    for (; k + 320 <= joined.length; k += 320) w2.process(joined.subarray(k, k + 320));
    pending = joined.slice(k);
    both[i] = Number(process.hrtime.bigint() - t0);
  }
  const sil = await SileroVad.create();
  const x = Int16Array.from(call16.mic.flatMap((m) => Array.from(m)));
  const nChunks = Math.min(quick ? 500 : 3000, Math.floor(x.length / 512));
  const silero = new Float64Array(nChunks);
  for (let i = 0; i < nChunks; i++) {
    const t0 = process.hrtime.bigint();
    await sil.process(x.subarray(i * 512, (i + 1) * 512));
    silero[i] = (Number(process.hrtime.bigint() - t0) * 20) / 32;  // per 20 ms of audio
  }
  return {
    'WebRTC VAD 16k (fvad-wasm, mode 3)': dist(web),
    'speex-resampler q5 24k->16k (WASM) + WebRTC VAD 16k': dist(both),
    'Silero v5 16k (onnxruntime-node, per 20 ms of a 512-sample chunk)': dist(silero),
  };
}

async function accuracy() {
  const rate = 16000, fs = (rate * FRAME_MS) / 1000;
  const out: any[] = [];
  for (const half of HALVES) {
    const track = halfTrack(half, rate);
    const n = track.labels.length;
    for (const kind of ALL_NOISE_KINDS) {
      for (const snr of [0, 5, 10, 20]) {
        const x = mix(track, kind, snr);
        const ours = new Float32Array(n), web = new Float32Array(n), before = new Float32Array(n);
        const v = new Vad({ sampleRateHz: rate, frameMs: 20 });
        const va = alt ? new alt.Vad({ sampleRateHz: rate, frameMs: 20 }) : null;
        const w = await WebRtcScore.create(rate, 20);
        for (let f = 0; f < n; f++) {
          const fr = x.subarray(f * fs, (f + 1) * fs);
          ours[f] = v.process(fr);
          if (va) before[f] = va.process(fr);
          web[f] = w.process(fr);
        }
        const sil = await SileroVad.scoreFrames(x, n, fs);
        const row: any = { half, noise: kind, snrDb: snr };
        const sets: [string, Float32Array][] = [['ours', ours], ['webrtc', web], ['silero', sil]];
        if (va) sets.push([ALT_NAME, before]);
        for (const [name, s] of sets) {
          row[name] = { auc: rocAuc(s, track.labels), f1: f1(s, track.labels), onsetMedianMs: median(onsetLatenciesMs(s, track)) };
        }
        out.push(row);
      }
    }
  }
  return out;
}

/** Babble with no near talker: share of frames scored >= 0.5 (after 1 s), per half. */
async function crowdAlone() {
  const rate = 16000, fs = 320;
  const out: any[] = [];
  for (const half of HALVES) {
    const len = halfTrack(half, rate).pcm.length;
    const x = toInt16(noise('babble', len, rate, noiseSeed(half), half).map((v) => v * 1000));
    const n = Math.floor(len / fs);
    const v = new Vad({ sampleRateHz: rate, frameMs: 20 });
    const va = alt ? new alt.Vad({ sampleRateHz: rate, frameMs: 20 }) : null;
    const w = await WebRtcVad.create(rate, 20, 3);
    const sil = await SileroVad.scoreFrames(x, n, fs);
    let ours = 0, before = 0, web = 0, silero = 0, k = 0;
    for (let f = 0; f < n; f++) {
      const fr = x.subarray(f * fs, (f + 1) * fs);
      const p = v.process(fr), pa = va ? va.process(fr) : 0, pw = w.process(fr);
      if (f < 50) continue;
      k++;
      ours += p >= 0.5 ? 1 : 0; before += pa >= 0.5 ? 1 : 0; web += pw; silero += sil[f] >= 0.5 ? 1 : 0;
    }
    out.push({ half, frames: k, ours: ours / k, ...(va ? { [ALT_NAME]: before / k } : {}), webrtcMode3: web / k, silero: silero / k });
  }
  return out;
}

async function echo() {
  const rate = 16000, fs = 320;
  const agent = agentTrack(rate);
  const ref = toInt16(agent.pcm);
  const hiss = noise('white', agent.pcm.length, rate, 5);
  const res: any[] = [];
  for (const delayMs of [20, 100, 200]) {
    for (const attenDb of [10, 20, 30]) {
      const mic = toInt16(echoOf(agent.pcm, rate, delayMs, attenDb).map((v, i) => v + 30 * hiss[i]));
      const bi = new BargeInDetector({ micRateHz: rate, refRateHz: rate, frameMs: 20 });
      const ba = alt ? new alt.BargeIn({ micRateHz: rate, refRateHz: rate, frameMs: 20 }) : null;
      const w = await WebRtcVad.create(rate, 20, 3);
      const n = Math.floor(mic.length / fs);
      const sil = await SileroVad.scoreFrames(mic, n, fs);
      const lag = Math.round(delayMs / FRAME_MS);
      let act = 0, ours = 0, plain = 0, web = 0, silero = 0, ints = 0, before = 0, beforeInts = 0;
      for (let f = 0; f < n; f++) {
        const m = mic.subarray(f * fs, (f + 1) * fs), r = ref.subarray(f * fs, (f + 1) * fs);
        bi.process(m, r);
        if (ba) { ba.process(m, r); beforeInts += ba.info[3] & 1; }
        const wv = w.process(m);
        ints += bi.events & 1;
        if (f < lag || !agent.labels[f - lag]) continue;
        act++;
        ours += bi.callerSpeech ? 1 : 0;
        if (ba) before += ba.info[1] === 1 ? 1 : 0;
        plain += bi.vadProbability >= 0.5 ? 1 : 0;
        web += wv;
        silero += sil[f] >= 0.5 ? 1 : 0;
      }
      res.push({ delayMs, attenDb, echoFrames: act, bargeInFalseAlarm: ours / act, interruptions: ints,
        ...(ba ? { [ALT_NAME]: { bargeInFalseAlarm: before / act, interruptions: beforeInts } } : {}),
        ourPlainVad: plain / act, webrtcMode3: web / act, silero: silero / act });
    }
  }
  return res;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const us = (ns: number) => (ns / 1000).toFixed(2);
const st = run('stages') ? await stages() : null;
if (st) {
  console.log(`\nStages, CPU per 20 ms frame of real speech (best / median of batch means, ns); small-ratio kernel: ${st.simd}`);
  for (const [k, v] of Object.entries(st.rows)) console.log(`  ${k.padEnd(70)} ${v.bestNs.toFixed(0).padStart(8)} ${v.medianNs.toFixed(0).padStart(8)}`);
  console.log(`  native state: 16->24 resampler for 1280-sample calls ${st.memory.resampler16to24StateBytes} B, echo chain ${st.memory.echoChain16to24StateBytes} B; shared tables ${JSON.stringify(st.memory.sharedTables)}`);
}
const ch = run('chain') ? chainTiming() : null;
if (ch) {
  console.log(`\nChain per 20 ms frame (MediaChannel.process: resample + VAD + barge-in; caller over real echo, agent audio pushed), one timed call per frame, µs median / mean / p99 (the mean is what a call costs; it also takes the machine's hiccups); timer ${ch.timerNs.medianNs.toFixed(0)} ns included`);
  for (const r of ch.configs) {
    const cell = (b: any) => `${us(b.process.medianNs)} / ${us(b.process.meanNs)} / ${us(b.process.p99Ns)} (push ${us(b.pushReference.medianNs)})`;
    console.log(`  ${r.inRateHz / 1000}k->${r.procRateHz / 1000}k ref ${r.refRateHz / 1000}k, ${r.ours.process.frames} frames: ours ${cell(r.ours)}${alt ? ` | ${ALT_NAME} ${cell(r[ALT_NAME])}` : ''}`);
  }
}
const bt = run('baselines') ? await baselineTiming() : null;
if (bt) for (const [k, v] of Object.entries(bt)) console.log(`  ${k}: ${us(v.medianNs)} / ${us(v.p99Ns)}`);
const acc = run('accuracy') ? await accuracy() : null;
if (acc) {
  console.log('\nVAD accuracy (16 kHz, 20 ms frames): AUC / F1 / onset median ms');
  const cAcc = (x: any) => `${x.auc.toFixed(3)} ${x.f1.toFixed(2)} ${String(Math.round(x.onsetMedianMs)).padStart(3)}`;
  for (const r of acc) {
    console.log(`  ${r.half.padEnd(7)} ${r.noise.padEnd(6)} ${String(r.snrDb).padStart(2)} dB  ours ${cAcc(r.ours)}${alt ? ` | ${ALT_NAME} ${cAcc(r[ALT_NAME])}` : ''} | webrtc ${cAcc(r.webrtc)} | silero ${cAcc(r.silero)}`);
  }
}
const crowd = run('crowd') ? await crowdAlone() : null;
if (crowd) {
  console.log('\nBabble alone (no near talker): frames scored as speech');
  for (const r of crowd) console.log(`  ${r.half.padEnd(7)} ours ${pct(r.ours)}${alt ? ` ${ALT_NAME} ${pct(r[ALT_NAME])}` : ''} webrtc mode 3 ${pct(r.webrtcMode3)} silero ${pct(r.silero)}`);
}
const ec = run('echo') ? await echo() : null;
if (ec) {
  console.log('\nPure agent echo: frames marked as caller speech');
  for (const r of ec) {
    const b = r[ALT_NAME];
    console.log(`  ${String(r.delayMs).padStart(3)} ms -${r.attenDb} dB  barge-in ${pct(r.bargeInFalseAlarm)} (${r.interruptions} interruptions)${b ? ` ${ALT_NAME} ${pct(b.bargeInFalseAlarm)} (${b.interruptions})` : ''} | plain VAD ours ${pct(r.ourPlainVad)} webrtc ${pct(r.webrtcMode3)} silero ${pct(r.silero)}`);
  }
}
const outPath = process.env.BENCH_OUT ?? (quick ? null : 'bench/results/native.json');
if (st && ch && bt && acc && crowd && ec && !outPath) console.log('\nquick run: results not written (BENCH_OUT=<file> writes them)');
if (st && ch && bt && acc && crowd && ec && outPath) {
  mkdirSync(dirname(outPath), { recursive: true });
  writeFileSync(outPath, JSON.stringify({
    date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model, cores: cpus().length, quick,
    alt: ALT_PATH ? { name: ALT_NAME, path: ALT_PATH } : null,
    note: 'stages: ns per 20 ms frame, best and median of batch means; chain and baselines: ns per frame, one timed call per frame (timer included)',
    stages: st, chain: ch, baselineTiming: bt, vadAccuracy: acc, crowdAlone: crowd, echoFalseAlarm: ec,
  }, null, 2) + '\n');
  console.log(`\nwrote ${outPath}`);
}
if (process.argv.includes('--markdown') && st && ch && bt && acc && ec) {
  // Tables for docs/native.md.
  console.log('\n| stage (20 ms frame of real speech) | best ns | median ns |\n|---|---:|---:|');
  for (const [k, v] of Object.entries(st.rows)) console.log(`| ${k} | ${v.bestNs.toFixed(0)} | ${v.medianNs.toFixed(0)} |`);
  console.log(`\n| chain (MediaChannel.process per 20 ms frame) | ours median / p99 µs |${alt ? ` ${ALT_NAME} median / p99 µs |` : ''} pushReference median µs |\n|---|---:|${alt ? '---:|' : ''}---:|`);
  for (const r of ch.configs) {
    console.log(`| ${r.inRateHz / 1000}k → ${r.procRateHz / 1000}k, reference ${r.refRateHz / 1000}k${r.note ? ` (${r.note})` : ''} | ${us(r.ours.process.medianNs)} / ${us(r.ours.process.p99Ns)} |${alt ? ` ${us(r[ALT_NAME].process.medianNs)} / ${us(r[ALT_NAME].process.p99Ns)} |` : ''} ${us(r.ours.pushReference.medianNs)} |`);
  }
  for (const [k, v] of Object.entries(bt)) console.log(`| ${k} | ${us(v.medianNs)} / ${us(v.p99Ns)} |${alt ? ' |' : ''} |`);
  for (const half of HALVES) {
    console.log(`\n${half} half\n\n| noise | SNR dB | ours AUC / F1 / onset ms |${alt ? ` ${ALT_NAME} AUC / F1 / onset ms |` : ''} WebRTC AUC / F1 / onset ms | Silero AUC / F1 / onset ms |\n|---|---:|---|${alt ? '---|' : ''}---|---|`);
    const c = (x: any) => `${x.auc.toFixed(3)} / ${x.f1.toFixed(2)} / ${Math.round(x.onsetMedianMs)}`;
    for (const r of acc.filter((a) => a.half === half)) console.log(`| ${r.noise} | ${r.snrDb} | ${c(r.ours)} |${alt ? ` ${c(r[ALT_NAME])} |` : ''} ${c(r.webrtc)} | ${c(r.silero)} |`);
  }
  console.log(`\n| echo delay | echo level | barge-in caller frames | interruptions |${alt ? ` ${ALT_NAME} caller frames / interruptions |` : ''} plain VAD (ours) | WebRTC mode 3 | Silero |\n|---:|---:|---:|---:|${alt ? '---:|' : ''}---:|---:|---:|`);
  for (const r of ec) {
    const b = r[ALT_NAME];
    console.log(`| ${r.delayMs} ms | -${r.attenDb} dB | ${pct(r.bargeInFalseAlarm)} | ${r.interruptions} |${b ? ` ${pct(b.bargeInFalseAlarm)} / ${b.interruptions} |` : ''} ${pct(r.ourPlainVad)} | ${pct(r.webrtcMode3)} | ${pct(r.silero)} |`);
  }
}
