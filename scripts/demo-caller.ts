// The demo's caller: a `ws` client of the media socket that sends a microphone in real time
// (20 ms PCM16 frames, silence between sentences), prints the transcript as it arrives and
// keeps both sides of the call for the WAV.
import WebSocket from 'ws';
import { Track } from './demo-audio.js';

export interface ControlFrame {
  atMs: number;
  frame: Record<string, unknown>;
}

const FRAME_MS = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class DemoCaller {
  readonly ws: WebSocket;
  readonly control: ControlFrame[] = [];
  readonly caller: Track;
  readonly agent: Track;
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly frameSamples: number;
  private readonly queue: Int16Array[] = [];
  private t0 = 0;
  private timer: NodeJS.Timeout | null = null;
  private closedAt: number | null = null;
  /** Arrival time of every agent frame. */
  readonly agentFrameMs: number[] = [];

  constructor(url: string, readonly rateHz: number, private readonly print: (line: string) => void, private readonly verbose: boolean) {
    this.frameSamples = (rateHz * FRAME_MS) / 1000;
    this.caller = new Track(rateHz);
    this.agent = new Track(rateHz);
    this.ws = new WebSocket(url);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => {
        this.t0 = performance.now();
        resolve();
      });
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) =>
      this.ws.once('close', (code, reason) => {
        this.closedAt = this.now();
        if (this.timer) clearTimeout(this.timer);
        resolve({ code, reason: reason.toString() });
      }),
    );
    this.ws.on('message', (data, isBinary) => {
      const at = this.now();
      const b = data as Buffer;
      if (isBinary) {
        this.agentFrameMs.push(at);
        this.agent.play(at, new Int16Array(b.buffer.slice(b.byteOffset, b.byteOffset + (b.byteLength & ~1))));
        return;
      }
      const frame = JSON.parse(b.toString('utf8')) as Record<string, unknown>;
      this.control.push({ atMs: at, frame });
      const t = `[${(at / 1000).toFixed(1).padStart(5)} s]`;
      if (frame.type === 'transcript') this.print(`${t} ${frame.role === 'user' ? 'caller' : 'agent'}: ${String(frame.text)}`);
      else if (frame.type === 'error') this.print(`${t} ! error: ${String(frame.message)}`);
      else if (frame.type === 'interrupted') this.print(`${t} (agent interrupted${frame.heard ? ` after "${String(frame.heard)}"` : ''})`);
      else if (this.verbose) this.print(`${t} ${JSON.stringify(frame)}`);
    });
  }

  now(): number {
    return performance.now() - this.t0;
  }

  /** Starts the microphone: a frame every 20 ms, from the queue or silence. */
  start(): void {
    let next = performance.now();
    const tick = () => {
      const now = performance.now();
      while (next <= now + 1) {
        this.sendFrame();
        next += FRAME_MS;
      }
      this.timer = setTimeout(tick, Math.max(1, next - performance.now()));
    };
    tick();
  }

  private sendFrame(): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    const frame = this.queue.shift() ?? new Int16Array(this.frameSamples);
    this.caller.play(this.now(), frame);
    this.ws.send(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength));
  }

  /** Queues speech; resolves when its last frame has been sent. */
  async say(pcm: Int16Array): Promise<void> {
    for (let off = 0; off < pcm.length; off += this.frameSamples) {
      const f = new Int16Array(this.frameSamples);
      f.set(pcm.subarray(off, Math.min(pcm.length, off + this.frameSamples)));
      this.queue.push(f);
    }
    while (this.queue.length && this.ws.readyState === WebSocket.OPEN) await sleep(FRAME_MS);
  }

  /** Waits for a control frame after `sinceMs` matching `pred`; null on timeout or close. */
  async waitFor(pred: (f: Record<string, unknown>) => boolean, sinceMs: number, timeoutMs: number): Promise<ControlFrame | null> {
    const end = performance.now() + timeoutMs;
    for (;;) {
      const hit = this.control.find((c) => c.atMs >= sinceMs && pred(c.frame));
      if (hit) return hit;
      if (performance.now() > end || this.closedAt !== null) return null;
      await sleep(20);
    }
  }

  /** Arrival of the first agent frame at or after `ms`, or null. */
  firstAudioAfter(ms: number): number | null {
    return this.agentFrameMs.find((t) => t >= ms) ?? null;
  }

  hangUp(): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ type: 'stop' }));
  }

  get endedAtMs(): number {
    return this.closedAt ?? this.now();
  }
}
