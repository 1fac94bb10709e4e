import WebSocket from 'ws';
import { Resampler } from '../../src/audio/native.js';

// A scripted caller on the real media socket: sends 20 ms PCM16 frames in real time (silence
// when its script is empty), records every frame and control message it receives, and can
// feed what it hears back into its microphone (an echo path: delay + attenuation).

export interface Received {
  at: number;
  frame: Record<string, unknown>;
}

export class ScriptedCaller {
  readonly ws: WebSocket;
  readonly text: Received[] = [];
  readonly audio: { at: number; pcm: Int16Array }[] = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly queue: Int16Array[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly frameSamples: number;
  private echo: { delayFrames: number; gain: number; line: Int16Array[]; delay: Int16Array[]; resampler: Resampler | null } | null = null;
  private noise: { rms: number; seed: number } | null = null;
  /** Monotonic ms each played script item started being sent. */
  readonly marks = new Map<string, number>();
  private pendingMarks: { index: number; name: string }[] = [];
  private sentFrames = 0;
  private queuedFrames = 0;
  closedInfo: { code: number; reason: string } | null = null;

  constructor(url: string, readonly rateIn: number, readonly rateOut: number) {
    this.frameSamples = rateIn / 50;
    this.ws = new WebSocket(url);
    this.ws.on('error', () => {});
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) =>
      this.ws.once('close', (code, reason) => {
        this.closedInfo = { code, reason: reason.toString() };
        this.stopSending();
        resolve(this.closedInfo);
      }),
    );
    this.ws.on('message', (data, isBinary) => {
      const at = performance.now();
      if (isBinary) {
        const b = data as Buffer;
        const pcm = new Int16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
        this.audio.push({ at, pcm });
        if (this.echo) this.echo.line.push(this.echo.resampler ? this.echo.resampler.output.slice(0, this.echo.resampler.process(pcm)) : pcm);
      } else this.text.push({ at, frame: JSON.parse(data.toString()) as Record<string, unknown> });
    });
  }

  /** Starts the real-time microphone. */
  async start(): Promise<void> {
    await this.opened;
    let next = performance.now();
    const tick = () => {
      const now = performance.now();
      while (next <= now + 1) {
        this.sendFrame();
        next += 20;
      }
      this.timer = setTimeout(tick, Math.max(1, next - performance.now()));
    };
    tick();
  }

  /** Feeds the agent's audio back into the microphone, delayed and attenuated (an echo path). */
  enableEcho(delayMs: number, attenuationDb: number): void {
    const resampler = this.rateOut === this.rateIn ? null : new Resampler({ inRateHz: this.rateOut, outRateHz: this.rateIn, maxInputSamples: 8192 });
    this.echo = { delayFrames: Math.round(delayMs / 20), gain: 10 ** (-attenuationDb / 20), line: [], delay: [], resampler };
  }

  /** Adds steady white noise at `rms` (PCM16 units) to everything the microphone sends. */
  backgroundNoise(rms: number, seed = 3): void {
    this.noise = { rms, seed };
  }

  /** Queues speech (at rateIn) after what is queued; `name` marks when it starts playing. */
  say(pcm: Int16Array, name?: string): void {
    if (name) this.pendingMarks.push({ index: this.queuedFrames, name });
    for (let off = 0; off < pcm.length; off += this.frameSamples) {
      const f = new Int16Array(this.frameSamples);
      f.set(pcm.subarray(off, Math.min(pcm.length, off + this.frameSamples)));
      this.queue.push(f);
      this.queuedFrames++;
    }
  }

  silence(ms: number): void {
    this.say(new Int16Array(Math.round((this.rateIn * ms) / 1000)));
  }

  private sendFrame(): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    const frame = this.queue.shift() ?? new Int16Array(this.frameSamples);
    const fromScript = this.sentFrames < this.queuedFrames;
    if (fromScript) {
      while (this.pendingMarks.length && this.pendingMarks[0].index <= this.sentFrames) this.marks.set(this.pendingMarks.shift()!.name, performance.now());
      this.sentFrames++;
    } else {
      this.sentFrames = this.queuedFrames;
    }
    if (this.echo) this.mixEcho(frame);
    if (this.noise) this.mixNoise(frame);
    this.ws.send(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength));
  }

  /**
   * The agent's audio (resampled to the mic rate) comes back `delayMs` later, attenuated. Like
   * a loudspeaker, the echo path runs in real time: each mic frame takes one frame of what was
   * received (silence when nothing was), so a pause in the agent's audio is a pause in the echo.
   */
  private mixEcho(frame: Int16Array): void {
    const e = this.echo!;
    const played = new Int16Array(frame.length);
    let i = 0;
    while (i < played.length && e.line.length) {
      const c = e.line[0];
      const take = Math.min(played.length - i, c.length);
      played.set(c.subarray(0, take), i);
      i += take;
      if (take === c.length) e.line.shift();
      else e.line[0] = c.subarray(take);
    }
    e.delay.push(played);
    if (e.delay.length <= e.delayFrames) return;
    const echo = e.delay.shift()!;
    for (let k = 0; k < frame.length; k++) frame[k] = Math.max(-32768, Math.min(32767, Math.round(frame[k] + echo[k] * e.gain)));
  }

  private mixNoise(frame: Int16Array): void {
    const n = this.noise!;
    for (let i = 0; i < frame.length; i++) {
      n.seed = (n.seed * 1664525 + 1013904223) >>> 0;
      const v = frame[i] + ((n.seed / 2 ** 32) * 2 - 1) * n.rms * Math.sqrt(3);
      frame[i] = Math.max(-32768, Math.min(32767, Math.round(v)));
    }
  }

  /** Control frames of one type, in order. */
  frames(type: string): Record<string, unknown>[] {
    return this.text.filter((r) => r.frame.type === type).map((r) => r.frame);
  }

  async waitFor(pred: (f: Record<string, unknown>) => boolean, timeoutMs = 10_000): Promise<Received> {
    const end = performance.now() + timeoutMs;
    for (;;) {
      const hit = this.text.find((r) => pred(r.frame));
      if (hit) return hit;
      if (performance.now() > end) throw new Error(`no matching frame in ${timeoutMs} ms; got ${JSON.stringify(this.text.map((r) => r.frame))}`);
      if (this.closedInfo) throw new Error(`socket closed (${this.closedInfo.code} ${this.closedInfo.reason}); got ${JSON.stringify(this.text.map((r) => r.frame))}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Waits until `n` frames of `type` arrived. */
  async waitForCount(type: string, n: number, timeoutMs = 10_000): Promise<void> {
    const end = performance.now() + timeoutMs;
    while (this.frames(type).length < n) {
      if (performance.now() > end) throw new Error(`waited for ${n} ${type}; got ${JSON.stringify(this.text.map((r) => r.frame))}`);
      if (this.closedInfo) throw new Error(`socket closed (${this.closedInfo.code}); got ${JSON.stringify(this.text.map((r) => r.frame))}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  audioSamplesAfter(at: number): number {
    return this.audio.filter((a) => a.at >= at).reduce((n, a) => n + a.pcm.length, 0);
  }

  hangUp(): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ type: 'stop' }));
  }

  stopSending(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  close(): void {
    this.stopSending();
    this.ws.close();
  }
}
