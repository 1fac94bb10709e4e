// The load client, in its own process: raw TCP sockets, a hand-made WebSocket handshake, one
// pre-masked 20 ms PCM16 frame written to every socket (the same Buffer, never copied), and a
// frame parser that only counts server frames and their arrival times. It must not be the
// bottleneck, so it does as little as a client can.
//
// Carrier mode (`carrier` in the start command): each socket is a Twilio media stream. After the
// upgrade it sends `connected` and `start` (session id and token in customParameters, μ-law
// 8000 Hz mono), then every 20 ms one `media` JSON text frame with 160 μ-law bytes in base64,
// built and masked once per socket (chunk/timestamp stay fixed: the server does not read them).
// Received text frames are counted when their payload starts with `{"event":"media"` (only the
// first 16 bytes are looked at).
import { connect as tcpConnect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { cpuMs, type CarrierStart, type ClientStats, type ToChild } from './ipc.js';
import { mulawEncode } from './mulaw.js';

const FRAME_MS = 20;
const IN_RATE_HZ = 16000;
const PAYLOAD_BYTES = (IN_RATE_HZ * FRAME_MS * 2) / 1000; // 640
const GROUPS = 4; // sessions are spread over 4 sub-ticks of 5 ms, like independent callers

function maskedFrame(): Buffer {
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  for (let i = 0; i < PAYLOAD_BYTES / 2; i++) payload.writeInt16LE(Math.round(6000 * Math.sin((2 * Math.PI * 300 * i) / IN_RATE_HZ)), i * 2);
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const header = Buffer.from([0x82, 0x80 | 126, PAYLOAD_BYTES >> 8, PAYLOAD_BYTES & 0xff]);
  const masked = Buffer.alloc(PAYLOAD_BYTES);
  for (let i = 0; i < PAYLOAD_BYTES; i++) masked[i] = payload[i] ^ mask[i & 3];
  return Buffer.concat([header, mask, masked]);
}
const FRAME = maskedFrame();

/** A masked text frame (client → server) carrying `text`. */
function maskedText(text: string): Buffer {
  const payload = Buffer.from(text);
  const n = payload.length;
  const mask = Buffer.from([0x9a, 0xbc, 0xde, 0xf0]);
  const header = n < 126 ? Buffer.from([0x81, 0x80 | n]) : Buffer.from([0x81, 0x80 | 126, n >> 8, n & 0xff]);
  for (let i = 0; i < n; i++) payload[i] ^= mask[i & 3];
  return Buffer.concat([header, mask, payload]);
}

const CARRIER_RATE_HZ = 8000;
/** 20 ms of a 300 Hz tone as μ-law, base64: the same caller audio as the web sessions, at 8 kHz. */
const MULAW_B64 = (() => {
  const n = (CARRIER_RATE_HZ * FRAME_MS) / 1000; // 160
  const pcm = new Int16Array(n);
  for (let i = 0; i < n; i++) pcm[i] = Math.round(6000 * Math.sin((2 * Math.PI * 300 * i) / CARRIER_RATE_HZ));
  const law = new Uint8Array(n);
  mulawEncode(pcm, law);
  return Buffer.from(law).toString('base64');
})();

/** The Twilio stream's opening messages and its per-20-ms `media` frame, all pre-masked. */
function carrierFrames(c: CarrierStart, i: number): { hello: Buffer; media: Buffer } {
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
  return { hello: Buffer.concat([maskedText(JSON.stringify(connected)), maskedText(JSON.stringify(start))]), media: maskedText(JSON.stringify(media)) };
}
const MEDIA_PREFIX = Buffer.from('{"event":"media"');
const CLOSE = Buffer.from([0x88, 0x82, 1, 2, 3, 4, 0x03 ^ 1, 0xe8 ^ 2]); // close 1000, masked

// Jitter histogram: |inter-arrival − 20 ms| in 0.1 ms bins up to 1 s.
const BINS = 10_000;
const hist = new Uint32Array(BINS + 1);
let measuring = false;
let sentFrames = 0;
let receivedFrames = 0;

class Conn {
  upgraded = false;
  private head = '';
  /** Bytes of the current frame's payload still to skip; -1 while reading a header. */
  private remaining = 0;
  private headerBuf = Buffer.alloc(14);
  private headerHave = 0;
  private lastArrival = -1;
  /** Text frames: the first bytes of the payload, to tell `media` from other events. */
  private readonly peekBuf = Buffer.alloc(MEDIA_PREFIX.length);
  private peekNeed = 0;
  private peekHave = 0;
  /** The frame written every 20 ms (binary PCM16, or a carrier `media` message). */
  frame: Buffer = FRAME;
  /** Written once on upgrade (carrier: `connected` + `start`). */
  hello: Buffer | null = null;

  constructor(readonly socket: Socket, private readonly onUpgrade: (ok: boolean) => void) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      if (!this.upgraded) this.onUpgrade(false);
    });
  }

  private onData(chunk: Buffer): void {
    let off = 0;
    if (!this.upgraded) {
      this.head += chunk.toString('latin1');
      const end = this.head.indexOf('\r\n\r\n');
      if (end < 0) return;
      this.upgraded = this.head.startsWith('HTTP/1.1 101');
      if (this.upgraded && this.hello) this.socket.write(this.hello);
      this.onUpgrade(this.upgraded);
      off = chunk.length - (this.head.length - end - 4);
      this.head = '';
      if (!this.upgraded) return;
    }
    const now = performance.now();
    while (off < chunk.length) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, chunk.length - off);
        if (this.peekHave < this.peekNeed) {
          const copy = Math.min(take, this.peekNeed - this.peekHave);
          chunk.copy(this.peekBuf, this.peekHave, off, off + copy);
          this.peekHave += copy;
          if (this.peekHave === this.peekNeed && this.peekBuf.equals(MEDIA_PREFIX)) this.onFrame(now);
        }
        this.remaining -= take;
        off += take;
        continue;
      }
      // Header: at least 2 bytes, more for 16/64-bit lengths.
      while (this.headerHave < 2 && off < chunk.length) this.headerBuf[this.headerHave++] = chunk[off++];
      if (this.headerHave < 2) return;
      const len7 = this.headerBuf[1] & 0x7f;
      const need = len7 === 126 ? 4 : len7 === 127 ? 10 : 2;
      while (this.headerHave < need && off < chunk.length) this.headerBuf[this.headerHave++] = chunk[off++];
      if (this.headerHave < need) return;
      const opcode = this.headerBuf[0] & 0x0f;
      const len = len7 === 126 ? this.headerBuf.readUInt16BE(2) : len7 === 127 ? Number(this.headerBuf.readBigUInt64BE(2)) : len7;
      this.headerHave = 0;
      this.remaining = len;
      if (opcode === 2) this.onFrame(now);
      else if (opcode === 1 && len >= MEDIA_PREFIX.length) {
        this.peekNeed = MEDIA_PREFIX.length;
        this.peekHave = 0;
      } else this.peekNeed = this.peekHave = 0;
    }
  }

  /** One server audio frame (binary, or a carrier `media` message) arrived. */
  private onFrame(now: number): void {
    if (!measuring) {
      this.lastArrival = -1;
      return;
    }
    receivedFrames++;
    if (this.lastArrival >= 0) {
      const dev = Math.abs(now - this.lastArrival - FRAME_MS);
      hist[Math.min(BINS, Math.round(dev * 10))]++;
    }
    this.lastArrival = now;
  }
}

function open(url: string, carrier: CarrierStart | undefined, i: number): Promise<Conn | null> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: u.hostname, port: Number(u.port) });
    const conn = new Conn(socket, (ok) => resolve(ok ? conn : (socket.destroy(), null)));
    if (carrier) {
      const f = carrierFrames(carrier, i);
      conn.hello = f.hello;
      conn.frame = f.media;
    }
    socket.once('connect', () => {
      socket.write(
        `GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
  });
}

function percentile(p: number): number {
  let total = 0;
  for (let i = 0; i <= BINS; i++) total += hist[i];
  if (total === 0) return 0;
  const target = Math.ceil(total * p);
  let acc = 0;
  for (let i = 0; i <= BINS; i++) {
    acc += hist[i];
    if (acc >= target) return i / 10;
  }
  return BINS / 10;
}

async function run(urls: string[], carrier: CarrierStart[] | undefined, warmupMs: number, measureMs: number): Promise<ClientStats> {
  const conns: (Conn | null)[] = [];
  for (let i = 0; i < urls.length; i += 100) conns.push(...(await Promise.all(urls.slice(i, i + 100).map((u, j) => open(u, carrier?.[i + j], i + j)))));
  const live = conns.filter((c): c is Conn => c !== null);
  const groups: Conn[][] = Array.from({ length: GROUPS }, () => []);
  live.forEach((c, i) => groups[i % GROUPS].push(c));

  const start = performance.now();
  let tick = 0;
  let cpuStart = cpuMs();
  let windowStart = 0;
  const stopAt = start + warmupMs + measureMs;
  await new Promise<void>((resolve) => {
    const step = () => {
      const now = performance.now();
      // Catch up every sub-tick that is due (a late timer sends the frames it owes).
      while (start + tick * (FRAME_MS / GROUPS) <= now) {
        const g = groups[tick % GROUPS];
        for (let i = 0; i < g.length; i++) g[i].socket.write(g[i].frame);
        if (measuring) sentFrames += g.length;
        tick++;
      }
      if (!measuring && now >= start + warmupMs) {
        measuring = true;
        windowStart = now;
        cpuStart = cpuMs();
        process.send!({ type: 'measure-start' });
      }
      if (now >= stopAt) {
        process.send!({ type: 'measure-end' });
        return resolve();
      }
      setTimeout(step, Math.max(0, start + tick * (FRAME_MS / GROUPS) - performance.now()));
    };
    step();
  });
  const cpuEnd = cpuMs();
  const windowMs = performance.now() - windowStart;
  // Let in-flight output arrive before counting; the hang-up waits for the `hangup` command
  // (the server's RSS snapshot is taken with the calls still connected).
  await new Promise((r) => setTimeout(r, 300));
  measuring = false;
  connected = live;
  return {
    connected: live.length,
    refused: conns.length - live.length,
    sentFrames,
    receivedFrames,
    jitterP50Ms: percentile(0.5),
    jitterP99Ms: percentile(0.99),
    cpuMs: cpuEnd.user + cpuEnd.system - cpuStart.user - cpuStart.system,
    windowMs,
  };
}

let connected: Conn[] = [];

process.on('message', (m: ToChild) => {
  if (m.cmd === 'start') void run(m.urls, m.carrier, m.warmupMs, m.measureMs).then((stats) => process.send!({ type: 'done', stats }));
  else if (m.cmd === 'hangup') {
    for (const c of connected) c.socket.end(CLOSE);
    process.send!({ type: 'hung-up' });
  } else if (m.cmd === 'exit') process.exit(0);
});
process.send!({ type: 'ready' });
