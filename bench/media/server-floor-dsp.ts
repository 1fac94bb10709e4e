// The floor plus the work the echo load requires: a bare uWebSockets.js socket whose caller
// audio goes through the same native chain as ours (EchoChain: 20 ms framing, VAD, resampling
// 16 → 24 kHz, one call per message into a shared output array) and is sent back at once, as
// one message per 20 ms output frame. No session, pacing, output ring, database or rate limit.
// No server that does that work on this socket layer can cost less, so this row is the lower
// bound of ours against the bare floor. Web sessions only (the carrier load would add JSON,
// base64 and μ-law on top).
import uWS from 'uWebSockets.js';
import { EchoChain } from '../../src/audio/native.js';
import { Fault, serveBenchmark } from './ipc.js';

const IN_HZ = 16000;
const OUT_HZ = 24000;
const FRAME_MS = 20;
const OUT_FRAME_BYTES = (OUT_HZ * FRAME_MS * 2) / 1000;
/** As src/media/echo-loop.ts: the client's 20 ms messages fit, and the output array is sized by it. */
const MAX_MESSAGE_BYTES = 2048;

const fault = new Fault();
let sessions = 0;
// The chains' shared output, and byte views of its whole frames made once: a message allocates nothing.
let output: Int16Array | null = null;
let frames: Uint8Array[] = [];

interface Socket { chain: EchoChain }

const app = uWS.App().ws<Socket>('/*', {
  maxPayloadLength: 1024 * 1024,
  upgrade: (res, req, context) =>
    res.upgrade(
      { chain: new EchoChain({ inRateHz: IN_HZ, outRateHz: OUT_HZ, frameMs: FRAME_MS, maxMessageBytes: MAX_MESSAGE_BYTES }) },
      req.getHeader('sec-websocket-key'),
      req.getHeader('sec-websocket-protocol'),
      req.getHeader('sec-websocket-extensions'),
      context,
    ),
  open: () => void sessions++,
  message: (ws, message, isBinary) => {
    if (!isBinary || message.byteLength > MAX_MESSAGE_BYTES) return;
    const { chain } = ws.getUserData();
    if (!output) {
      const out = (output = new Int16Array(chain.maxOutputSamples));
      frames = Array.from({ length: Math.floor(out.byteLength / OUT_FRAME_BYTES) }, (_, k) => new Uint8Array(out.buffer, k * OUT_FRAME_BYTES, OUT_FRAME_BYTES));
    }
    const produced = chain.pushInto(message, output);
    // uWS corks the socket inside the message callback: the frames leave in one write.
    for (let k = 0; k < (produced * 2) / OUT_FRAME_BYTES; k++) if (!fault.drop(ws)) ws.send(frames[k], true);
  },
  close: () => void sessions--,
});
const port = await new Promise<number>((resolve) => app.listen('127.0.0.1', 0, (s) => resolve(uWS.us_socket_local_port(s as uWS.us_listen_socket))));
serveBenchmark(port, () => ({ sessions, ringDrops: 0, faultDrops: fault.dropped }));
