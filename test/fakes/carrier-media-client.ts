import WebSocket from 'ws';
import { decodeMulaw, encodeMulaw } from './twilio/mulaw.js';

// The carrier side of a bidirectional media stream (Twilio, Telnyx), for driving our media socket
// as a phone call would: 20 ms μ-law `media` frames (paced like a phone line or not), `mark`
// echoes once the audio sent before them has "played", and a record of everything the server
// sends back (media, mark, clear). Each carrier's fake gives only its message shapes.

export const FRAME_BYTES = 160; // 20 ms of μ-law at 8 kHz
export const FRAME_MS = 20;
/** μ-law silence (0xFF decodes to 0). */
const SILENCE_FRAME = Buffer.alloc(FRAME_BYTES, 0xff);

export interface ReceivedMessage {
  atMs: number;
  raw: string;
  event: string;
  json: Record<string, unknown>;
}

export interface FakeCarrierStreamOptions {
  /**
   * Echo every mark the server sends once the audio queued before it has "played" at real time
   * (default true). A `clear` drops the unplayed audio and echoes pending marks at once.
   */
  echoMarks?: boolean;
  headers?: Record<string, string>;
}

/** Opens the WebSocket a fake carrier stream speaks over; rejects when the upgrade is refused. */
export async function openCarrierSocket(url: string, headers?: Record<string, string>): Promise<WebSocket> {
  const ws = new WebSocket(url, { headers });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
  });
  return ws;
}

export abstract class FakeCarrierStream {
  readonly received: ReceivedMessage[] = [];
  /** Non-JSON or binary frames the server sent (a protocol violation worth asserting on). */
  readonly garbage: (string | Buffer)[] = [];
  closeCode: number | null = null;
  private sequence = 0;
  private chunk = 0;
  protected startedAt = 0;
  private readonly waiters = new Set<() => void>();
  private readonly closed: Promise<void>;
  /** When the audio the server has sent so far would finish playing on the phone. */
  private playoutEndsAtMs = 0;
  private readonly pendingMarks = new Map<NodeJS.Timeout, string>();
  private line: NodeJS.Timeout | null = null;
  private readonly lineQueue: { frame: Buffer; mark?: string }[] = [];
  /** When each marked `say` started going out (ms since the epoch). */
  readonly saidAt = new Map<string, number>();

  protected constructor(
    readonly ws: WebSocket,
    private readonly echoMarks: boolean,
    /** Names this fake in timeout errors. */
    private readonly label: string,
  ) {
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    this.closed = new Promise((resolve) =>
      ws.on('close', (code) => {
        this.closeCode = code;
        this.stopLine();
        for (const timer of this.pendingMarks.keys()) clearTimeout(timer);
        this.pendingMarks.clear();
        this.notify();
        resolve();
      }),
    );
  }

  /** The carrier's echo of the mark `name` (sent once its audio has played). */
  protected abstract markEcho(name: string): unknown;
  abstract sendConnected(): void;
  abstract sendStart(): void;
  /** One media message carrying these μ-law bytes. */
  abstract sendMediaFrame(mulaw: Buffer): void;
  abstract sendDtmf(digit: string): void;
  abstract sendStop(): void;

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (isBinary) {
      this.garbage.push(data);
      return this.notify();
    }
    const raw = data.toString('utf8');
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      this.garbage.push(raw);
      return this.notify();
    }
    const event = typeof json.event === 'string' ? json.event : '';
    const now = Date.now();
    this.received.push({ atMs: now, raw, event, json });
    if (event === 'media') {
      const bytes = Buffer.byteLength(String((json.media as { payload?: unknown })?.payload ?? ''), 'base64');
      this.playoutEndsAtMs = Math.max(now, this.playoutEndsAtMs) + bytes / 8; // 8 bytes per ms at 8 kHz
    } else if (event === 'mark' && this.echoMarks) {
      const name = (json.mark as { name?: unknown } | undefined)?.name;
      if (typeof name === 'string') {
        const timer = setTimeout(() => this.echoMark(timer), Math.max(0, this.playoutEndsAtMs - now));
        this.pendingMarks.set(timer, name);
      }
    } else if (event === 'clear') {
      this.playoutEndsAtMs = now;
      for (const timer of [...this.pendingMarks.keys()]) {
        clearTimeout(timer);
        this.echoMark(timer);
      }
    }
    this.notify();
  }

  private echoMark(timer: NodeJS.Timeout): void {
    const name = this.pendingMarks.get(timer);
    this.pendingMarks.delete(timer);
    if (name === undefined || this.ws.readyState !== WebSocket.OPEN) return;
    this.sendJson(this.markEcho(name));
  }

  /** Marks this fake has echoed back so far are gone from the pending set; true when none are pending. */
  marksSettled(): boolean {
    return this.pendingMarks.size === 0;
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  /** The next sequence number, as the decimal string carriers send. */
  protected nextSeq(): string {
    return String(++this.sequence);
  }

  /** The next media chunk number (from 1). */
  protected nextChunk(): number {
    return ++this.chunk;
  }

  sendJson(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  /** `connected` then `start`, as carriers open every stream. */
  begin(): void {
    this.sendConnected();
    this.sendStart();
  }

  /**
   * Plays PCM16 at 8 kHz as the caller: encodes it to μ-law and sends 20 ms frames, paced at real
   * time when `realtime` (as a phone line delivers it), else as fast as possible.
   */
  async playPcm(pcm: Int16Array, opts: { realtime?: boolean } = {}): Promise<void> {
    await this.playMulaw(encodeMulaw(pcm), opts);
  }

  async playMulaw(mulaw: Buffer, opts: { realtime?: boolean } = {}): Promise<void> {
    const t0 = Date.now();
    for (let i = 0, n = 0; i < mulaw.length; i += FRAME_BYTES, n++) {
      if (opts.realtime) {
        const due = t0 + n * FRAME_MS - Date.now();
        if (due > 0) await new Promise((r) => setTimeout(r, due));
      }
      if (this.ws.readyState !== WebSocket.OPEN) return;
      this.sendMediaFrame(mulaw.subarray(i, i + FRAME_BYTES));
    }
  }

  /**
   * A live phone line: from now on a 20 ms frame goes out every 20 ms in real time, as carriers
   * stream it — what `say` queued, else μ-law silence. Stops on close or `stopLine`.
   */
  startLine(): void {
    if (this.line) return;
    const t0 = Date.now();
    let n = 0;
    const tick = () => {
      if (this.ws.readyState !== WebSocket.OPEN) return this.stopLine();
      // Catch up after a late timer so the line keeps real time.
      while (t0 + n * FRAME_MS <= Date.now()) {
        const next = this.lineQueue.shift();
        if (next && next.mark) this.saidAt.set(next.mark, Date.now());
        this.sendMediaFrame(next ? next.frame : SILENCE_FRAME);
        n++;
      }
      this.line = setTimeout(tick, Math.max(1, t0 + n * FRAME_MS - Date.now()));
    };
    this.line = setTimeout(tick, 0);
  }

  stopLine(): void {
    if (this.line) clearTimeout(this.line);
    this.line = null;
  }

  /** Queues caller speech (PCM16 8 kHz) on the line; `mark` records when its first frame went out (`saidAt`). */
  say(pcm: Int16Array, mark?: string): void {
    const law = encodeMulaw(pcm);
    for (let i = 0; i < law.length; i += FRAME_BYTES) {
      const frame = Buffer.alloc(FRAME_BYTES, 0xff);
      law.copy(frame, 0, i, Math.min(law.length, i + FRAME_BYTES));
      this.lineQueue.push({ frame, mark: i === 0 ? mark : undefined });
    }
  }

  /** Milliseconds of speech still queued on the line. */
  get queuedLineMs(): number {
    return this.lineQueue.length * FRAME_MS;
  }

  /** Carriers end a stream with `stop` and then close the socket. */
  async hangUp(): Promise<void> {
    if (this.ws.readyState === WebSocket.OPEN) {
      this.sendStop();
      this.ws.close(1000);
    }
    await this.closed;
  }

  /** Drops the socket without `stop` (network loss). */
  drop(): void {
    this.ws.terminate();
  }

  messages(event: string): ReceivedMessage[] {
    return this.received.filter((m) => m.event === event);
  }

  /** The μ-law bytes the server sent in `media` messages, in order. */
  receivedMulaw(): Buffer {
    return Buffer.concat(this.messages('media').map((m) => Buffer.from(String((m.json.media as { payload?: unknown })?.payload ?? ''), 'base64')));
  }

  receivedPcm(): Int16Array {
    return decodeMulaw(this.receivedMulaw());
  }

  marks(): string[] {
    return this.messages('mark').map((m) => String((m.json.mark as { name?: unknown })?.name));
  }

  clears(): number {
    return this.messages('clear').length;
  }

  startedAtMs(): number {
    return this.startedAt;
  }

  /** Resolves once `test` holds (checked on every message and on close), or rejects after `timeoutMs`. */
  waitFor(test: (s: this) => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    if (test(this)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!test(this)) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`${this.label}: timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  waitForClose(timeoutMs = 5000): Promise<void> {
    return this.waitFor((s) => s.closeCode !== null, timeoutMs, 'close');
  }
}
