import type { PcmMessage } from './native.js';

/**
 * Feeds a caller message to `push` in pieces of at most `maxBytes` (the native channel's
 * buffers are sized by it, so a rare 64 KiB message costs a few calls instead of every call
 * owning 64 KiB buffers). Returns the sum of what `push` returned (frames taken in).
 */
export function inChunks(message: PcmMessage, maxBytes: number, push: (chunk: PcmMessage) => number): number {
  const bytes = message.byteLength;
  if (bytes <= maxBytes) return push(message);
  const buffer = message instanceof ArrayBuffer ? message : message.buffer;
  const base = message instanceof ArrayBuffer ? 0 : message.byteOffset;
  let frames = 0;
  for (let off = 0; off < bytes; off += maxBytes) frames += push(new Uint8Array(buffer, base + off, Math.min(maxBytes, bytes - off)));
  return frames;
}
