// The baseline: the media socket as a Node developer would usually build it, with `ws`,
// speex-resampler (WASM) and @echogarden/fvad-wasm (WebRTC VAD in WASM); caller audio is
// VAD-checked per 20 ms frame, resampled 16 → 24 kHz and queued as 20 ms output frames.
// Carrier sessions (text frames, Twilio media-stream JSON): every message is JSON.parse'd; a
// `media` payload is base64-decoded, μ-law decoded (JS table), VAD-checked at 8 kHz, μ-law
// encoded again (JS table) and queued as a `media` JSON message of the stream (8 kHz both
// ways, as our carrier sessions run: no resampling).
//
// Output is paced as our server paces it, so that both do the same job: frames leave from one
// shared 5 ms pacer (a timer, also run by a caller message once a tick is due) at real time, at
// most 60 ms ahead of a per-call playhead; at most 400 ms wait (the oldest give way and are
// counted as ring drops), and none leave while the socket has more than 64 KiB unsent.
import { WebSocketServer, type WebSocket } from 'ws';
import speex from 'speex-resampler';
// @ts-expect-error the package ships no types
import fvadModule from '@echogarden/fvad-wasm';
import { Fault, serveBenchmark } from './ipc.js';
import { mulawDecode, mulawEncode } from './mulaw.js';

// CommonJS module: its class is the `default` property.
const SpeexResampler = (speex as unknown as { default: typeof import('speex-resampler').default }).default;
await SpeexResampler.initPromise;
const fvad = await fvadModule();
const FRAME_SAMPLES_IN = 320;
const FRAME_BYTES_OUT = 960; // 20 ms at 24 kHz
// Our server's pacing constants (src/media/pacer.ts, echo-call.ts, voice-session.ts).
const FRAME_MS = 20;
const TICK_MS = 5;
const LEAD_MS = 60;
const QUEUE_FRAMES = 400 / FRAME_MS;
const MAX_BUFFERED_BYTES = 64 * 1024;

const fault = new Fault();
let ringDrops = 0;

/** One call's output: 20 ms frames waiting for the pacer. */
class Output {
  private readonly frames: (Buffer | string)[] = [];
  /** End of the audio sent so far (ms), moved up to now when the call ran dry. */
  private playheadMs = 0;
  private partial: Buffer | null = null;

  constructor(
    private readonly ws: WebSocket,
    private readonly binary: boolean,
  ) {}

  push(frame: Buffer | string): void {
    if (this.frames.length === QUEUE_FRAMES) {
      this.frames.shift();
      ringDrops++;
    }
    this.frames.push(frame);
    waiting.add(this);
  }

  /** Resampled audio as whole frames (speex gives one per 20 ms in; a remainder waits for more). */
  pushPcm(pcm: Buffer): void {
    const all = this.partial ? Buffer.concat([this.partial, pcm]) : pcm;
    let off = 0;
    for (; off + FRAME_BYTES_OUT <= all.length; off += FRAME_BYTES_OUT) this.push(all.subarray(off, off + FRAME_BYTES_OUT));
    this.partial = off < all.length ? Buffer.from(all.subarray(off)) : null;
  }

  /** Sends what is due at `nowMs`; returns whether frames still wait. */
  pace(nowMs: number): boolean {
    if (this.playheadMs < nowMs) this.playheadMs = nowMs;
    while (this.frames.length > 0 && this.playheadMs + FRAME_MS <= nowMs + LEAD_MS) {
      if (this.ws.bufferedAmount > MAX_BUFFERED_BYTES) break;
      const frame = this.frames.shift()!;
      if (!fault.drop(this)) this.ws.send(frame, { binary: this.binary });
      this.playheadMs += FRAME_MS;
    }
    return this.frames.length > 0;
  }

  close(): void {
    this.frames.length = 0;
    waiting.delete(this);
  }
}

/** Calls with frames queued: the only ones the pacer visits. */
const waiting = new Set<Output>();
let lastRunMs = 0;
function pace(now: number): void {
  lastRunMs = now;
  for (const out of waiting) if (!out.pace(now)) waiting.delete(out);
}
setInterval(() => pace(performance.now()), TICK_MS);
/** A caller message also runs the pacer when a tick is due, as ours does (timers can run late under socket load). */
function poke(): void {
  const now = performance.now();
  if (now - lastRunMs >= TICK_MS) pace(now);
}

const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 1024 * 1024 });
let sessions = 0;
wss.on('connection', (ws) => {
  sessions++;
  const resampler = new SpeexResampler(1, 16000, 24000, 7);
  const vad = fvad._fvad_new();
  fvad._fvad_set_sample_rate(vad, 16000);
  fvad._fvad_set_mode(vad, 2);
  const framePtr = fvad._malloc(FRAME_SAMPLES_IN * 2);
  let speaking = 0;
  let streamSid = '';
  let out: Output | null = null;
  const pcm8 = new Int16Array(160);
  const law = new Uint8Array(160);
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    poke();
    if (!isBinary) {
      const m = JSON.parse(data.toString('utf8'));
      if (m.event === 'start') {
        streamSid = m.start.streamSid;
        fvad._fvad_set_sample_rate(vad, 8000);
        out = new Output(ws, false);
      } else if (m.event === 'media' && out) {
        const audio = Buffer.from(m.media.payload, 'base64');
        const n = Math.min(audio.length, pcm8.length);
        const pcm = pcm8.subarray(0, n);
        mulawDecode(audio.subarray(0, n), pcm);
        if (n === 160) {
          fvad.HEAPU8.set(new Uint8Array(pcm.buffer, 0, n * 2), framePtr);
          speaking += fvad._fvad_process(vad, framePtr, n);
        }
        mulawEncode(pcm, law);
        out.push(JSON.stringify({ event: 'media', streamSid, media: { payload: Buffer.from(law.buffer, 0, n).toString('base64') } }));
      }
      return;
    }
    for (let off = 0; off + FRAME_SAMPLES_IN * 2 <= data.length; off += FRAME_SAMPLES_IN * 2) {
      fvad.HEAPU8.set(data.subarray(off, off + FRAME_SAMPLES_IN * 2), framePtr);
      speaking += fvad._fvad_process(vad, framePtr, FRAME_SAMPLES_IN);
    }
    (out ??= new Output(ws, true)).pushPcm(resampler.processChunk(data));
  });
  ws.on('close', () => {
    sessions--;
    out?.close();
    fvad._fvad_free(vad);
    fvad._free(framePtr);
  });
});
await new Promise((r) => wss.once('listening', r));

serveBenchmark((wss.address() as { port: number }).port, () => ({ sessions, ringDrops, faultDrops: fault.dropped }));
