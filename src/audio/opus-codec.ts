import opus from '@discordjs/opus';

/**
 * `encoding: "opus"` (contract §9): every binary message is one 20 ms Opus packet each way.
 * The codec allocates a Buffer per packet (it is libopus behind N-API); PCM16 is the
 * allocation-free path.
 */
export class OpusCodec {
  private readonly decoder: opus.OpusEncoder;
  private readonly encoder: opus.OpusEncoder;

  constructor(sampleRateIn: number, sampleRateOut: number) {
    this.decoder = new opus.OpusEncoder(sampleRateIn, 1);
    this.encoder = new opus.OpusEncoder(sampleRateOut, 1);
  }

  /** One Opus packet → PCM16LE at the input rate. */
  decode(packet: ArrayBuffer): Buffer {
    return this.decoder.decode(Buffer.from(packet));
  }

  /** One 20 ms PCM16 frame at the output rate → one Opus packet. */
  encode(frame: Uint8Array): Buffer {
    return this.encoder.encode(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength));
  }
}
