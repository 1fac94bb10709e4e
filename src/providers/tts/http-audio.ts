import type { HttpStream } from '../llm/http.js';
import { PcmAssembler, WavStripper } from './pcm.js';
import { protocolError } from '../errors.js';

// Turns a streamed HTTP audio body into aligned PCM16 chunks, stripping a WAV header first
// when one arrives (`stripWav`), and checking the header's format when it does.

export async function* pcmFromHttp(
  provider: string,
  http: HttpStream,
  opts: { stripWav: boolean; expectRateHz: number },
): AsyncGenerator<Int16Array, void, undefined> {
  const asm = new PcmAssembler();
  const wav = opts.stripWav ? new WavStripper(true) : null;
  try {
    for await (const chunk of http.chunks) {
      const bytes = wav ? wav.push(chunk) : chunk;
      if (wav?.format && (wav.format.bitsPerSample !== 16 || wav.format.channels !== 1 || wav.format.sampleRateHz !== opts.expectRateHz)) {
        throw protocolError(provider, `audio in an unexpected format (${wav.format.sampleRateHz} Hz, ${wav.format.bitsPerSample} bit, ${wav.format.channels} ch)`);
      }
      const pcm = bytes.byteLength ? asm.push(bytes) : null;
      if (pcm) yield pcm;
    }
    const rest = wav?.end();
    const pcm = rest?.byteLength ? asm.push(rest) : null;
    if (pcm) yield pcm;
  } finally {
    http.cancel();
  }
}
