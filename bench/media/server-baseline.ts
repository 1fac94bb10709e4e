// The baseline: the media socket as a Node developer would usually build it, with `ws`,
// speex-resampler (WASM) and @echogarden/fvad-wasm (WebRTC VAD in WASM); caller audio is
// VAD-checked per 20 ms frame, resampled 16 → 24 kHz and sent straight back.
// Carrier sessions (text frames, Twilio media-stream JSON): every message is JSON.parse'd; a
// `media` payload is base64-decoded, μ-law decoded (JS table), VAD-checked at 8 kHz, μ-law
// encoded again (JS table) and sent back as a `media` JSON message of the stream (8 kHz both
// ways, as our carrier sessions run: no resampling).
import { WebSocketServer } from 'ws';
import speex from 'speex-resampler';
// @ts-expect-error the package ships no types
import fvadModule from '@echogarden/fvad-wasm';
import { serveBenchmark } from './ipc.js';
import { mulawDecode, mulawEncode } from './mulaw.js';

// CommonJS module: its class is the `default` property.
const SpeexResampler = (speex as unknown as { default: typeof import('speex-resampler').default }).default;
await SpeexResampler.initPromise;
const fvad = await fvadModule();
const FRAME_SAMPLES_IN = 320;

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
  const pcm8 = new Int16Array(160);
  const law = new Uint8Array(160);
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (!isBinary) {
      const m = JSON.parse(data.toString('utf8'));
      if (m.event === 'start') {
        streamSid = m.start.streamSid;
        fvad._fvad_set_sample_rate(vad, 8000);
      } else if (m.event === 'media' && streamSid) {
        const audio = Buffer.from(m.media.payload, 'base64');
        const n = Math.min(audio.length, pcm8.length);
        const pcm = pcm8.subarray(0, n);
        mulawDecode(audio.subarray(0, n), pcm);
        if (n === 160) {
          fvad.HEAPU8.set(new Uint8Array(pcm.buffer, 0, n * 2), framePtr);
          speaking += fvad._fvad_process(vad, framePtr, n);
        }
        mulawEncode(pcm, law);
        ws.send(JSON.stringify({ event: 'media', streamSid, media: { payload: Buffer.from(law.buffer, 0, n).toString('base64') } }));
      }
      return;
    }
    for (let off = 0; off + FRAME_SAMPLES_IN * 2 <= data.length; off += FRAME_SAMPLES_IN * 2) {
      fvad.HEAPU8.set(data.subarray(off, off + FRAME_SAMPLES_IN * 2), framePtr);
      speaking += fvad._fvad_process(vad, framePtr, FRAME_SAMPLES_IN);
    }
    ws.send(resampler.processChunk(data), { binary: true });
  });
  ws.on('close', () => {
    sessions--;
    fvad._fvad_free(vad);
    fvad._free(framePtr);
  });
});
await new Promise((r) => wss.once('listening', r));

serveBenchmark((wss.address() as { port: number }).port, () => ({ sessions, droppedFrames: 0 }));
