// Echo-aware barge-in on the generated corpus: pure agent echo (-10..-30 dB,
// 20-200 ms) must not count as caller speech; real caller speech over the
// echo must; short bursts never interrupt. Also end to end via MediaChannel.
import t from 'tap';
import { BargeInDetector, BargeInEvents, ChannelEvents, MediaChannel } from '../../src/audio/native.js';
import { FRAME_MS, agentTrack, echoOf, musicLike, noise, speechTrack, toInt16 } from './corpus.js';

const RATE = 16000;
const FS = (RATE * FRAME_MS) / 1000;
const agent = agentTrack(RATE);
const ref = toInt16(agent.pcm);
const hiss = noise('white', agent.pcm.length, RATE, 5);

function run(mic: Int16Array, minDurationMs = 300) {
  const d = new BargeInDetector({ micRateHz: RATE, refRateHz: RATE, frameMs: FRAME_MS, bargeIn: { minDurationMs } });
  const n = Math.floor(Math.min(mic.length, ref.length) / FS);
  const caller = new Uint8Array(n), vad = new Uint8Array(n);
  const interruptionsMs: number[] = [];
  const raisedAtMs: number[] = []; // stream time at the end of the frame that raised each one
  for (let f = 0; f < n; f++) {
    d.process(mic.subarray(f * FS, (f + 1) * FS), ref.subarray(f * FS, (f + 1) * FS));
    caller[f] = d.callerSpeech ? 1 : 0;
    vad[f] = d.vadProbability >= 0.5 ? 1 : 0;
    if (d.events & BargeInEvents.interruption) {
      interruptionsMs.push(d.interruptionMs);
      raisedAtMs.push((f + 1) * FRAME_MS);
    }
  }
  return { caller, vad, interruptionsMs, raisedAtMs, n };
}

t.test('pure agent echo: <= 1% caller-speech frames, no interruptions', async (t) => {
  let worst = 0;
  for (const delayMs of [20, 60, 120, 200]) {
    for (const attenDb of [10, 20, 30]) {
      const e = echoOf(agent.pcm, RATE, delayMs, attenDb);
      const mic = toInt16(e.map((v, i) => v + 30 * hiss[i]));
      const r = run(mic);
      let active = 0, fa = 0, plain = 0;
      const lag = Math.round(delayMs / FRAME_MS);
      for (let f = lag; f < r.n; f++) {
        if (!agent.labels[f - lag]) continue;  // frames where echo is audible
        active++;
        fa += r.caller[f];
        plain += r.vad[f];
      }
      worst = Math.max(worst, fa / active);
      t.ok(fa / active <= 0.01, `${delayMs} ms / -${attenDb} dB: ${(100 * fa / active).toFixed(2)}% caller frames (plain VAD ${(100 * plain / active).toFixed(1)}%)`);
      t.equal(r.interruptionsMs.length, 0, `${delayMs} ms / -${attenDb} dB: no interruption`);
    }
  }
  t.comment(`worst false-alarm rate ${(100 * worst).toFixed(2)}%`);
});

t.test('caller speech over the echo is caught', async (t) => {
  const caller = speechTrack(RATE, 3, 8);
  const len = Math.min(agent.pcm.length, caller.pcm.length);
  const onsets = caller.onsetsMs.filter((o) => o < (len / RATE) * 1000 - 1500);
  for (const [delayMs, attenDb] of [[40, 10], [150, 10], [100, 20], [200, 30]]) {
    const e = echoOf(agent.pcm, RATE, delayMs, attenDb);
    const mic = toInt16(Float32Array.from({ length: len }, (_, i) => e[i] + caller.pcm[i] + 30 * hiss[i]));
    const r = run(mic);
    let pos = 0, hit = 0;
    for (let f = 0; f < r.n; f++) if (caller.labels[f]) { pos++; hit += r.caller[f]; }
    const caught = onsets.filter((on) => r.interruptionsMs.some((ms) => ms >= on - 100 && ms <= on + 1000)).length;
    t.ok(hit / pos >= 0.8, `${delayMs} ms / -${attenDb} dB: caller frame recall ${(100 * hit / pos).toFixed(1)}% >= 80%`);
    t.ok(caught >= onsets.length - 1, `${delayMs} ms / -${attenDb} dB: ${caught}/${onsets.length} utterances interrupt`);
  }
});

// Stream time from the caller's onset to the frame that raises the interruption
// (minDurationMs 100, the engine's default): each lag of the echo bound learns on its own, so a line that carries no echo stops
// masking the caller after a few hundred ms of agent speech (one gain for all lags took 10-20 s).
t.test('a quiet line stops masking the caller early in the agent\'s speech', async (t) => {
  const caller = speechTrack(RATE, 3, 8);
  const agentStartMs = agent.labels.indexOf(1) * FRAME_MS;
  const onset = Math.round((caller.onsetsMs[0] * RATE) / 1000);
  const clipEnd = onset + Math.round(1.5 * RATE);
  for (const afterMs of [300, 600, 1000]) {
    const startMs = agentStartMs + afterMs;
    const shift = Math.round((startMs * RATE) / 1000) - onset;
    const mic = new Float32Array(agent.pcm.length);
    for (let i = 0; i < mic.length; i++) {
      const j = i - shift;
      mic[i] = 30 * hiss[i] + (j >= onset && j < clipEnd ? caller.pcm[j] : 0);
    }
    const r = run(toInt16(mic), 100);
    const latency = r.raisedAtMs.map((ms) => ms - startMs).find((d) => d >= 0);
    t.ok(latency !== undefined && latency <= 300, `caller ${afterMs} ms into the agent's speech: interrupted after ${latency} ms (<= 300)`);
  }
});

t.test('an echo path that gets 20 dB louder mid-call is learned', async (t) => {
  const quiet = echoOf(agent.pcm, RATE, 80, 30);
  const loud = echoOf(agent.pcm, RATE, 80, 10);
  const jump = 6 * RATE;
  const r = run(toInt16(quiet.map((v, i) => (i < jump ? v : loud[i]) + 30 * hiss[i])), 100);
  t.ok(r.interruptionsMs.length <= 2, `${r.interruptionsMs.length} false interruptions in all (<= 2)`);
  t.same(r.interruptionsMs.filter((ms) => ms > 10_000), [], 'none once the louder path had 4 s to be learned');
});

t.test('an echo whose delay jumps mid-call (a jitter buffer playing the rest later), caller silent: no interruptions', async (t) => {
  // Every 8 s the path is 100-200 ms longer or shorter: the tracker must follow it, through the
  // waveform check on the new lag (bargein_tuning.h, kWaveFollows). At -6 dB both builds, with and
  // without that check, raise some here; the sweep's jump lines measure the rest
  // (docs/benchmarks-turns.md, round 12).
  const delays = [60, 200, 340, 160, 280, 120];
  const paths = delays.map((ms) => echoOf(agent.pcm, RATE, ms, 10));
  const mic = toInt16(agent.pcm.map((_, i) => paths[Math.min(delays.length - 1, Math.floor(i / (8 * RATE)))][i] + 30 * hiss[i]));
  const r = run(mic, 100);
  t.same(r.interruptionsMs, [], `${delays.join(' / ')} ms, 8 s each`);
});

t.test('bursts shorter than minDurationMs never interrupt', async (t) => {
  const n = RATE * 5;
  const mic = new Float32Array(n);
  const nz = noise('white', n, RATE, 8);
  for (let s = RATE; s + RATE * 0.2 < n; s += RATE) for (let i = 0; i < RATE * 0.15; i++) mic[s + i] = 8000 * nz[s + i];  // 150 ms bursts
  const r = run(toInt16(mic.map((v, i) => v + 30 * hiss[i])), 300);
  t.equal(r.interruptionsMs.length, 0, '150 ms noise bursts, minDurationMs 300');
});

t.test('MediaChannel: reference pushed in step with 8 kHz caller audio', async (t) => {
  const agent8 = agentTrack(8000);
  const ref8 = toInt16(agent8.pcm);
  const e = echoOf(agent8.pcm, 8000, 120, 15);
  const ch = new MediaChannel({ inRateHz: 8000, procRateHz: 16000, refRateHz: 8000, frameMs: 20 });
  let frames = 0, callerFrames = 0, interruptions = 0;
  const msg = Buffer.alloc(320);
  for (let o = 0; o + 160 <= e.length; o += 160) {
    ch.pushReference(ref8.subarray(o, o + 160));
    for (let i = 0; i < 160; i++) msg.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(e[o + i] + 20 * hiss[o + i]))), 2 * i);
    const n = ch.process(msg);
    frames += n;
    for (let f = 0; f < n; f++) callerFrames += ch.callerProbabilities[f] >= 0.5 ? 1 : 0;
    if (ch.events & ChannelEvents.interruption) interruptions++;
  }
  t.ok(frames > 0);
  t.ok(callerFrames / frames <= 0.01, `echo-only caller frames ${(100 * callerFrames / frames).toFixed(2)}%`);
  t.equal(interruptions, 0);
});

t.test('a caller 20 dB quieter than usual, 100 ms into the agent on a line without echo, is caught at once', async (t) => {
  // The per-band double-talk test: the residual carries the caller in several bands and the mic
  // does not have the reference's shape, while the broadband echo bound still masks them.
  const caller = speechTrack(RATE, 3, 8);
  const startMs = agent.labels.indexOf(1) * FRAME_MS + 100;
  const onset = Math.round((caller.onsetsMs[0] * RATE) / 1000);
  const shift = Math.round((startMs * RATE) / 1000) - onset;
  const mic = new Float32Array(agent.pcm.length);
  for (let i = 0; i < mic.length; i++) {
    const j = i - shift;
    mic[i] = 10 * hiss[i] + (j >= onset && j < onset + 1.5 * RATE ? 0.1 * caller.pcm[j] : 0);
  }
  const r = run(toInt16(mic), 100);
  const latency = r.raisedAtMs.map((ms) => ms - startMs).find((d) => d >= 0);
  t.ok(latency !== undefined && latency <= 300, `interrupted after ${latency} ms (<= 300)`);
  t.same(r.raisedAtMs.filter((ms) => ms < startMs), [], 'nothing before the caller');
});

t.test('a crowd on the line, caller silent, while the agent speaks: no interruptions', async (t) => {
  // The line's own peaks (learned while no band is over) bound the evidence, as the echo does.
  const crowd = noise('babble', agent.pcm.length, RATE, 7);
  const mic = crowd.map((v) => 600 * v);
  const r = run(toInt16(mic), 100);
  t.ok(r.interruptionsMs.length <= 1, `${r.interruptionsMs.length} interruptions over ${(agent.pcm.length / RATE).toFixed(0)} s (<= 1)`);
});

t.test('quiet callers cutting in as the agent starts, no echo: their speech is not taken for the echo', async (t) => {
  // In the first maxEchoDelayMs of an utterance most lags hold silent reference; a caller's
  // speech matched some speech lag by shape alone and was trusted as the echo's delay, which
  // switched the per-lag caps off for the call (round 3: x0.05 1,480 ms, x0.03 never). The delay
  // is trusted only once the mic's level also follows the reference's at that lag.
  const caller = speechTrack(RATE, 3, 8);
  const onset = Math.round((caller.onsetsMs[0] * RATE) / 1000);
  const startMs = agent.labels.indexOf(1) * FRAME_MS;
  const shift = Math.round((startMs * RATE) / 1000) - onset;
  for (const gain of [0.05, 0.03]) {
    const mic = new Float32Array(agent.pcm.length);
    for (let i = 0; i < mic.length; i++) {
      const j = i - shift;
      mic[i] = 10 * hiss[i] + (j >= onset && j < onset + 1.5 * RATE ? gain * caller.pcm[j] : 0);
    }
    const r = run(toInt16(mic), 100);
    const latency = r.raisedAtMs.map((ms) => ms - startMs).find((d) => d >= 0);
    t.ok(latency !== undefined && latency <= 1000, `caller x${gain}: interrupted after ${latency} ms (<= 1000)`);
  }
});

/**
 * A caller cuts in 100 ms into the first agent utterance after 8 s of agent speech, over a line
 * noise (`line` scaled by `gain`, no echo). Returns how long after the agent's start it interrupted.
 */
function lateCutIn(line: Float32Array, gain: number) {
  const caller = speechTrack(RATE, 3, 8);
  const onset = Math.round((caller.onsetsMs[0] * RATE) / 1000);
  let heard = 0;
  let startF = -1;
  for (let f = 1; f < agent.labels.length && startF < 0; f++) {
    heard += agent.labels[f - 1];
    if (agent.labels[f] && !agent.labels[f - 1] && heard * FRAME_MS >= 8000) startF = f;
  }
  const startMs = startF * FRAME_MS + 100;
  const shift = Math.round((startMs * RATE) / 1000) - onset;
  const mic = new Float32Array(agent.pcm.length);
  for (let i = 0; i < mic.length; i++) {
    const j = i - shift;
    mic[i] = gain * line[i] + (j >= onset && j < onset + 1.5 * RATE ? caller.pcm[j] : 0);
  }
  const r = run(toInt16(mic), 100);
  return { heardS: (heard * FRAME_MS) / 1000, started: startF > 0, latency: r.raisedAtMs.map((ms) => ms - startMs).find((d) => d >= 0) };
}

t.test('a caller cutting in over a crowd after seconds of agent speech is still caught', async (t) => {
  // On a line without echo a delay was trusted late in the call (the crowd's speech); when no lag
  // stood out after that, the bound went back to the whole window times an erl the crowd had
  // taught, and masked the caller for the rest of the call (round 4: 980 ms). The trusted delay
  // now stays.
  const { heardS, started, latency } = lateCutIn(noise('babble', agent.pcm.length, RATE, 7), 600);
  t.ok(started, `an agent utterance starts after ${heardS.toFixed(1)} s of agent speech`);
  t.ok(latency !== undefined && latency <= 500, `interrupted ${latency} ms after the cut-in (<= 500)`);
});

t.test('music on the line, caller silent, while the agent speaks: no interruptions', async (t) => {
  // Each beat's onset trips bands, so the line's peaks never learned the beats and every few
  // beats passed for a caller (round 5: 60 interruptions in these 51 s). The line's 90th
  // percentile, learned while no echo is expected, bounds the evidence.
  const music = musicLike(agent.pcm.length, RATE);
  const r = run(toInt16(music.map((v) => 1000 * v)), 100);
  t.ok(r.interruptionsMs.length <= 1, `${r.interruptionsMs.length} interruptions over ${(agent.pcm.length / RATE).toFixed(0)} s (<= 1)`);
});

t.test('a caller cutting in over music after seconds of agent speech is still caught', async (t) => {
  // A caller at -23 dBFS over the music at -30: the line's upper percentile must not hide them.
  const { heardS, started, latency } = lateCutIn(musicLike(agent.pcm.length, RATE), 1000);
  t.ok(started, `an agent utterance starts after ${heardS.toFixed(1)} s of agent speech`);
  t.ok(latency !== undefined && latency <= 300, `interrupted ${latency} ms after the cut-in (<= 300)`);
});
