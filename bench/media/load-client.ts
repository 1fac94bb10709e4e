// The load client, in its own process: raw TCP sockets, a hand-made WebSocket handshake, one
// pre-masked 20 ms PCM16 frame written to every socket (the same Buffer, never copied), and a
// frame parser that only counts server frames and their arrival times. It must not be the
// bottleneck, so it does as little as a client can.
import { connect as tcpConnect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { cpuMs, type ClientStats, type ToChild } from './ipc.js';

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
      this.onUpgrade(this.upgraded);
      off = chunk.length - (this.head.length - end - 4);
      this.head = '';
      if (!this.upgraded) return;
    }
    const now = performance.now();
    while (off < chunk.length) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, chunk.length - off);
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
      if (opcode === 2) this.onBinaryFrame(now);
    }
  }

  private onBinaryFrame(now: number): void {
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

function open(url: string): Promise<Conn | null> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: u.hostname, port: Number(u.port) });
    const conn = new Conn(socket, (ok) => resolve(ok ? conn : (socket.destroy(), null)));
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

async function run(urls: string[], warmupMs: number, measureMs: number): Promise<ClientStats> {
  const conns: (Conn | null)[] = [];
  for (let i = 0; i < urls.length; i += 100) conns.push(...(await Promise.all(urls.slice(i, i + 100).map(open))));
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
        for (let i = 0; i < g.length; i++) g[i].socket.write(FRAME);
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
  // Let in-flight output arrive before counting, then hang up.
  await new Promise((r) => setTimeout(r, 300));
  measuring = false;
  for (const c of live) c.socket.end(CLOSE);
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

process.on('message', (m: ToChild) => {
  if (m.cmd === 'start') void run(m.urls, m.warmupMs, m.measureMs).then((stats) => process.send!({ type: 'done', stats }));
  else if (m.cmd === 'exit') process.exit(0);
});
process.send!({ type: 'ready' });
