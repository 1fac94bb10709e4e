import type { AddressInfo } from 'node:net';
import t from 'tap';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  buildClearMessage,
  buildMarkMessage,
  buildMediaMessage,
  parseInboundMessage,
  type InboundMessage,
} from '../../src/carriers/twilio/media-stream-protocol.js';
import { FakeMediaStream, FRAME_BYTES } from '../fakes/twilio/media-client.js';
import { decodeMulaw, encodeMulaw, linearToMulaw, mulawToLinear, tone } from '../fakes/twilio/mulaw.js';

// The fake Twilio media-streams client, checked against a tiny local ws server that reads it
// with our own protocol parser (so the fake and the parser agree on the documented format).

t.test('μ-law encoder: reference values and round trip within the quantisation step', async (t) => {
  t.equal(linearToMulaw(0), 0xff);
  t.equal(linearToMulaw(-1), 0x7f);
  t.equal(linearToMulaw(32767), 0x80);
  t.equal(linearToMulaw(-32768), 0x00);
  t.equal(mulawToLinear(0xff), 0);
  t.equal(mulawToLinear(0x80), 32124);
  t.equal(mulawToLinear(0x00), -32124);
  for (let byte = 0; byte < 256; byte++) {
    if (byte === 0x7f) continue; // "negative zero" decodes to 0, which encodes as 0xff
    t.equal(linearToMulaw(mulawToLinear(byte)), byte, `byte ${byte} is a fixed point`);
  }
  let worst = 0;
  for (let s = -32768; s <= 32767; s += 7) {
    const err = Math.abs(mulawToLinear(linearToMulaw(s)) - Math.max(-32124, Math.min(32124, s)));
    const step = Math.max(8, Math.abs(s) / 16); // μ-law error grows with magnitude (≈ 1/16 of it)
    if (err > step) worst = Math.max(worst, err);
  }
  t.equal(worst, 0, 'every sample decodes back within its segment step');
  t.same([...encodeMulaw(Buffer.from(new Int16Array([0, 1000, -1000]).buffer))], [...encodeMulaw(new Int16Array([0, 1000, -1000]))], 'LE bytes and Int16Array agree');
});

t.test('μ-law encoder agrees with the native codec (when the addon is built)', async (t) => {
  let G711: typeof import('../../src/audio/native.js').G711;
  try {
    ({ G711 } = await import('../../src/audio/native.js'));
  } catch {
    t.skip('native addon not built', async () => {});
    return;
  }
  const pcm = new Int16Array(65536);
  for (let i = 0; i < pcm.length; i++) pcm[i] = i - 32768;
  t.same(Buffer.from(G711.mulawEncode(pcm)), encodeMulaw(pcm), 'encode, all 65536 inputs');
  const law = Uint8Array.from({ length: 256 }, (_, i) => i);
  t.same([...G711.mulawDecode(law)], [...decodeMulaw(law)], 'decode, all 256 codes');
});

interface ServerSide {
  url: string;
  inbound: InboundMessage[];
  errors: string[];
  socket: Promise<WebSocket>;
  close: () => Promise<void>;
}

async function startServer(): Promise<ServerSide> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const inbound: InboundMessage[] = [];
  const errors: string[] = [];
  const socket = new Promise<WebSocket>((resolve) =>
    wss.on('connection', (ws) => {
      ws.on('message', (data) => {
        const r = parseInboundMessage(data as Buffer);
        if (r.ok) inbound.push(r.message);
        else errors.push(`${r.error.reason}: ${r.error.message}`);
      });
      resolve(ws);
    }),
  );
  const { port } = wss.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/v2/carrier/twilio`,
    inbound,
    errors,
    socket,
    close: () => {
      for (const c of wss.clients) c.terminate();
      return new Promise((r) => wss.close(() => r()));
    },
  };
}

const until = async (test: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
};

t.test('a call as Twilio streams it: connected, start, 20 ms μ-law frames, dtmf, stop', async (t) => {
  const server = await startServer();
  t.teardown(server.close);
  const call = await FakeMediaStream.connect(server.url, { customParameters: { session_id: 's-1', token: 'tok' } });
  call.begin();
  const pcm = tone(440, 100); // 100 ms → 5 frames
  await call.playPcm(pcm, { realtime: true });
  call.sendDtmf('7');
  await call.hangUp();
  await until(() => server.inbound.some((m) => m.event === 'stop'));

  t.same(server.errors, [], 'every message parses');
  t.same(server.inbound.map((m) => m.event), ['connected', 'start', 'media', 'media', 'media', 'media', 'media', 'dtmf', 'stop']);
  const [connected, start] = server.inbound;
  t.same(connected, { event: 'connected', protocol: 'Call', version: '1.0.0' });
  t.match(start, {
    event: 'start',
    sequenceNumber: 1,
    streamSid: call.streamSid,
    callSid: call.callSid,
    accountSid: call.accountSid,
    tracks: ['inbound'],
    customParameters: { session_id: 's-1', token: 'tok' },
    mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
  });
  t.match(call.streamSid, /^MZ[0-9a-f]{32}$/);
  const media = server.inbound.filter((m) => m.event === 'media');
  t.same(media.map((m) => (m.event === 'media' ? [m.chunk, m.timestampMs, m.sequenceNumber, m.audio.length, m.track] : null)), [
    [1, 0, 2, FRAME_BYTES, 'inbound'],
    [2, 20, 3, FRAME_BYTES, 'inbound'],
    [3, 40, 4, FRAME_BYTES, 'inbound'],
    [4, 60, 5, FRAME_BYTES, 'inbound'],
    [5, 80, 6, FRAME_BYTES, 'inbound'],
  ]);
  const heard = decodeMulaw(Buffer.concat(media.map((m) => (m.event === 'media' ? m.audio : Buffer.alloc(0)))));
  t.equal(heard.length, pcm.length);
  t.ok(heard.every((s, i) => Math.abs(s - pcm[i]) <= Math.max(8, Math.abs(pcm[i]) / 16)), 'the audio arrives as sent, within μ-law precision');
  t.match(server.inbound.at(-2), { event: 'dtmf', digit: '7', track: 'inbound_track' });
  t.match(server.inbound.at(-1), { event: 'stop', callSid: call.callSid, accountSid: call.accountSid, streamSid: call.streamSid });
  t.equal(call.closeCode, 1000);
});

t.test('records what the server sends; marks come back after playout, and at once on clear', async (t) => {
  const server = await startServer();
  t.teardown(server.close);
  const call = await FakeMediaStream.connect(server.url);
  call.begin();
  const ws = await server.socket;
  await until(() => server.inbound.some((m) => m.event === 'start'));

  const frame = Buffer.alloc(FRAME_BYTES, 0x55);
  const sentAt = Date.now();
  for (let i = 0; i < 5; i++) ws.send(buildMediaMessage(call.streamSid, frame)); // 100 ms of audio
  ws.send(buildMarkMessage(call.streamSid, 'first'));
  await until(() => server.inbound.some((m) => m.event === 'mark'));
  const firstEcho = Date.now() - sentAt;
  t.ok(firstEcho >= 90, `the mark came back once 100 ms had played (${firstEcho} ms)`);
  t.match(server.inbound.find((m) => m.event === 'mark'), { event: 'mark', name: 'first', streamSid: call.streamSid });

  for (let i = 0; i < 50; i++) ws.send(buildMediaMessage(call.streamSid, frame)); // 1 s more
  ws.send(buildMarkMessage(call.streamSid, 'second'));
  await call.waitFor((s) => s.marks().includes('second'), 1000, 'second mark received');
  const clearedAt = Date.now();
  ws.send(buildClearMessage(call.streamSid));
  await until(() => server.inbound.filter((m) => m.event === 'mark').length === 2, 500);
  t.ok(Date.now() - clearedAt < 500, 'clear echoed the pending mark at once, not after the 1 s of audio');
  t.equal(call.clears(), 1);
  t.same(call.marks(), ['first', 'second']);
  t.equal(call.messages('media').length, 55);
  t.same(call.receivedMulaw(), Buffer.alloc(55 * FRAME_BYTES, 0x55));
  t.equal(call.receivedPcm().length, 55 * FRAME_BYTES);
  t.ok(call.marksSettled());

  ws.send(Buffer.from([1, 2, 3]), { binary: true });
  ws.send('not json');
  await call.waitFor((s) => s.garbage.length === 2, 1000, 'garbage recorded');
  t.pass('binary and non-JSON frames are recorded as garbage, not crashes');

  call.drop();
  await call.waitForClose();
  t.equal(call.closeCode, 1006, 'dropped without a close frame');
});

t.test('a connection that cannot be made is reported', async (t) => {
  await t.rejects(FakeMediaStream.connect('ws://127.0.0.1:1/nothing'));
});
