// Bytes ↔ PCM16 helpers shared by the TTS and STT adapters: network chunks can split a
// sample in two and land at odd offsets, so bytes are carried over and copied into aligned
// Int16Arrays; WAV headers are written for uploads and stripped from streamed answers.

/** Turns a byte stream of 16-bit little-endian samples into Int16Array chunks. */
export class PcmAssembler {
  private carry: number | null = null;

  push(bytes: Uint8Array): Int16Array | null {
    const total = bytes.byteLength + (this.carry === null ? 0 : 1);
    const samples = total >> 1;
    if (samples === 0) {
      if (bytes.byteLength) this.carry = bytes[0];
      return null;
    }
    const out = new Int16Array(samples);
    const view = new Uint8Array(out.buffer);
    let i = 0;
    if (this.carry !== null) {
      view[0] = this.carry;
      view.set(bytes.subarray(0, samples * 2 - 1), 1);
      i = samples * 2 - 1;
    } else {
      view.set(bytes.subarray(0, samples * 2));
      i = samples * 2;
    }
    this.carry = i < bytes.byteLength ? bytes[i] : null;
    return out;
  }
}

export function wavHeader(sampleRateHz: number, dataBytes: number, channels = 1): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(sampleRateHz, 24);
  h.writeUInt32LE(sampleRateHz * channels * 2, 28);
  h.writeUInt16LE(channels * 2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** A complete mono 16-bit WAV file of `pcm`. */
export function encodeWav(pcm: Int16Array, sampleRateHz: number): Buffer {
  const data = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  return Buffer.concat([wavHeader(sampleRateHz, data.byteLength), data]);
}

export interface WavFormat {
  sampleRateHz: number;
  channels: number;
  bitsPerSample: number;
  formatTag: number;
}

/**
 * Strips a RIFF/WAVE header at the start of a byte stream (streamed WAVs often carry a
 * placeholder size), then passes the sample bytes through. A stream that does not start with
 * "RIFF" is taken as raw PCM when `optional`, else it is an error.
 */
export class WavStripper {
  private head = Buffer.alloc(0);
  private state: 'head' | 'data' = 'head';
  format: WavFormat | null = null;

  constructor(private readonly optional: boolean) {}

  /** Sample bytes in this chunk (possibly none while the header is still arriving). */
  push(chunk: Uint8Array): Uint8Array {
    if (this.state === 'data') return chunk;
    this.head = Buffer.concat([this.head, chunk]);
    if (this.head.length < 12) {
      if (this.optional && this.head.length >= 4 && this.head.toString('ascii', 0, 4) !== 'RIFF') return this.raw();
      return new Uint8Array(0);
    }
    if (this.head.toString('ascii', 0, 4) !== 'RIFF' || this.head.toString('ascii', 8, 12) !== 'WAVE') {
      if (this.optional) return this.raw();
      throw new Error('not a WAV stream');
    }
    let off = 12;
    while (off + 8 <= this.head.length) {
      const id = this.head.toString('ascii', off, off + 4);
      const size = this.head.readUInt32LE(off + 4);
      if (id === 'data') {
        this.state = 'data';
        const rest = this.head.subarray(off + 8);
        this.head = Buffer.alloc(0);
        if (!this.format) throw new Error('WAV data before its fmt chunk');
        return rest;
      }
      if (off + 8 + size + (size & 1) > this.head.length) return new Uint8Array(0);
      if (id === 'fmt ') {
        this.format = {
          formatTag: this.head.readUInt16LE(off + 8),
          channels: this.head.readUInt16LE(off + 10),
          sampleRateHz: this.head.readUInt32LE(off + 12),
          bitsPerSample: this.head.readUInt16LE(off + 22),
        };
      }
      off += 8 + size + (size & 1);
    }
    return new Uint8Array(0);
  }

  /** Bytes still held when the stream ended (a stream shorter than a header). */
  end(): Uint8Array {
    if (this.state === 'data') return new Uint8Array(0);
    if (this.optional && (this.head.length < 4 || this.head.toString('ascii', 0, 4) !== 'RIFF')) return this.raw();
    return new Uint8Array(0);
  }

  private raw(): Uint8Array {
    this.state = 'data';
    const rest = this.head;
    this.head = Buffer.alloc(0);
    return rest;
  }
}

export function concatPcm(chunks: Int16Array[]): Int16Array {
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}
