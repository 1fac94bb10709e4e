// The baseline: the media socket as a Node developer would usually build it, with `ws`,
// speex-resampler (WASM) and @echogarden/fvad-wasm (WebRTC VAD in WASM); caller audio is
// VAD-checked per 20 ms frame, resampled 16 → 24 kHz and sent straight back.
import { WebSocketServer } from 'ws';
import speex from 'speex-resampler';
// @ts-expect-error the package ships no types
import fvadModule from '@echogarden/fvad-wasm';
import { cpuMs, rssBytes, type ServerStats, type ToChild } from './ipc.js';

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
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (!isBinary) return;
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

process.on('message', (m: ToChild) => {
  if (m.cmd === 'stats') {
    const c = cpuMs();
    const stats: ServerStats = { cpuUserMs: c.user, cpuSystemMs: c.system, rssBytes: rssBytes(m.gc), sessions, droppedFrames: 0 };
    process.send!({ type: 'stats', stats });
  } else if (m.cmd === 'exit') process.exit(0);
});
process.send!({ type: 'ready', port: (wss.address() as { port: number }).port });
