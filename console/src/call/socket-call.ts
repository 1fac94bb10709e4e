import type { CallEvents, CallHandle, CallStart } from './client';

// Microphone → PCM16 at sample_rate_in over the media socket; PCM16 frames at sample_rate_out
// played back in order; `interrupted` drops what is queued (spec §4.7, contract §9).

/** Float samples at `from` Hz → PCM16 at `to` Hz (linear interpolation; enough for speech). */
export function toPcm16(input: Float32Array, from: number, to: number): Int16Array {
  const n = Math.floor((input.length * to) / from);
  const out = new Int16Array(n);
  const step = from / to;
  for (let i = 0; i < n; i++) {
    const x = i * step;
    const j = Math.floor(x);
    const a = input[j] ?? 0;
    const b = input[j + 1] ?? a;
    const v = a + (b - a) * (x - j);
    out[i] = Math.max(-32768, Math.min(32767, Math.round(v * 32767)));
  }
  return out;
}

export async function startSocketCall(start: CallStart, events: CallEvents): Promise<CallHandle> {
  events.onState('connecting');
  const mic = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true, channelCount: 1 } });
  const audio = new AudioContext();
  await audio.resume();
  const ws = new WebSocket(start.wsUrl);
  ws.binaryType = 'arraybuffer';

  let playhead = 0;
  const playing = new Set<AudioBufferSourceNode>();
  let ended = false;

  const source = audio.createMediaStreamSource(mic);
  // ScriptProcessor needs no extra module file (a worklet would need its own script URL).
  const tap = audio.createScriptProcessor(2048, 1, 1);
  const mute = audio.createGain();
  mute.gain.value = 0;
  source.connect(tap);
  tap.connect(mute);
  mute.connect(audio.destination);
  tap.onaudioprocess = (e) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.send(toPcm16(e.inputBuffer.getChannelData(0), audio.sampleRate, start.sampleRateIn).buffer);
  };

  const stopPlayback = () => {
    for (const s of playing) s.stop();
    playing.clear();
    playhead = 0;
  };
  const cleanup = () => {
    if (ended) return;
    ended = true;
    tap.disconnect();
    source.disconnect();
    mic.getTracks().forEach((t) => t.stop());
    setTimeout(() => void audio.close(), 500);
    events.onState('ended');
  };

  ws.onopen = () => events.onState('live');
  ws.onmessage = (m) => {
    if (m.data instanceof ArrayBuffer) {
      const pcm = new Int16Array(m.data);
      if (pcm.length === 0) return;
      const buf = audio.createBuffer(1, pcm.length, start.sampleRateOut);
      const ch = buf.getChannelData(0);
      for (let i = 0; i < pcm.length; i++) ch[i] = pcm[i] / 32768;
      const node = audio.createBufferSource();
      node.buffer = buf;
      node.connect(audio.destination);
      playhead = Math.max(playhead, audio.currentTime + 0.05);
      node.start(playhead);
      playhead += buf.duration;
      playing.add(node);
      node.onended = () => playing.delete(node);
      return;
    }
    let frame: { type?: string; role?: string; text?: string; heard?: string; reason?: string; message?: string };
    try {
      frame = JSON.parse(String(m.data)) as typeof frame;
    } catch {
      return;
    }
    if (frame.type === 'transcript' && (frame.role === 'user' || frame.role === 'assistant')) events.onTranscript(frame.role, frame.text ?? '');
    else if (frame.type === 'interrupted') {
      stopPlayback();
      events.onInterrupted(frame.heard);
    } else if (frame.type === 'error') events.onError(frame.message ?? 'error');
    else if (frame.type === 'session_ended') events.onEnded(frame.reason ?? 'ended');
  };
  ws.onclose = (e) => {
    if (e.code !== 1000 && e.code !== 1005) events.onError(`the call closed (${e.code}${e.reason ? `: ${e.reason}` : ''})`);
    cleanup();
  };
  ws.onerror = () => events.onError('the media socket failed');

  return {
    hangUp() {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'stop' }));
      setTimeout(() => ws.close(1000), 200);
    },
  };
}
