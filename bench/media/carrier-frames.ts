// What the load client writes on a carrier (Twilio media stream) session, built once per socket
// and masked: after the upgrade `connected` and `start` (session id and token in
// customParameters, μ-law 8000 Hz mono), then every 20 ms one `media` JSON text frame with
// 160 μ-law bytes in base64 (chunk/timestamp stay fixed: the server does not read them). The
// load client writes each frame's sequence mark over the payload's first four base64 characters
// (three μ-law bytes), at `markAt`.
import type { CarrierStart } from './ipc.js';
import { mulawEncode } from './mulaw.js';

const FRAME_MS = 20;
const CARRIER_RATE_HZ = 8000;

/** A masked text frame (client → server) carrying `text`. */
function maskedText(text: string): Buffer {
  const payload = Buffer.from(text);
  const n = payload.length;
  const mask = Buffer.from([0x9a, 0xbc, 0xde, 0xf0]);
  const header = n < 126 ? Buffer.from([0x81, 0x80 | n]) : Buffer.from([0x81, 0x80 | 126, n >> 8, n & 0xff]);
  for (let i = 0; i < n; i++) payload[i] ^= mask[i & 3];
  return Buffer.concat([header, mask, payload]);
}

/** 20 ms of a 300 Hz tone as μ-law, base64: the same caller audio as the web sessions, at 8 kHz. */
const MULAW_B64 = (() => {
  const n = (CARRIER_RATE_HZ * FRAME_MS) / 1000; // 160
  const pcm = new Int16Array(n);
  for (let i = 0; i < n; i++) pcm[i] = Math.round(6000 * Math.sin((2 * Math.PI * 300 * i) / CARRIER_RATE_HZ));
  const law = new Uint8Array(n);
  mulawEncode(pcm, law);
  return Buffer.from(law).toString('base64');
})();

/** The stream's opening messages and its per-20-ms `media` frame, both pre-masked; `markAt` is the payload's index in the frame's JSON. */
export function carrierFrames(c: CarrierStart, i: number): { hello: Buffer; media: Buffer; markAt: number } {
  const streamSid = `MZbench${String(i).padStart(26, '0')}`;
  const connected = { event: 'connected', protocol: 'Call', version: '1.0.0' };
  const start = {
    event: 'start',
    sequenceNumber: '1',
    streamSid,
    start: {
      streamSid,
      accountSid: c.accountSid,
      callSid: c.callSid,
      tracks: ['inbound'],
      customParameters: { session_id: c.sessionId, token: c.token },
      mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: CARRIER_RATE_HZ, channels: 1 },
    },
  };
  const media = { event: 'media', sequenceNumber: '2', streamSid, media: { track: 'inbound', chunk: '1', timestamp: '0', payload: MULAW_B64 } };
  const mediaJson = JSON.stringify(media);
  const markAt = mediaJson.indexOf('"payload":"') + '"payload":"'.length;
  return { hello: Buffer.concat([maskedText(JSON.stringify(connected)), maskedText(JSON.stringify(start))]), media: maskedText(mediaJson), markAt };
}
