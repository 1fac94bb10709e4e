import type { ReceivedSocket } from './server.js';

// ElevenLabs stream-input as documented: after the opening {"text":" ", …} the client sends
// text chunks, {"flush": true} and finally {"text": ""}; the server sends
// {"audio": base64, "isFinal": null, "normalizedAlignment", "alignment"} and then
// {"isFinal": true} before closing. Errors: {"message", "error", "code"}.

export function audioMessage(pcm: Int16Array, chars: string): Record<string, unknown> {
  const list = [...chars];
  const alignment = { chars: list, charStartTimesMs: list.map((_, i) => i * 50), charDurationsMs: list.map(() => 50) };
  return { audio: Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64'), isFinal: null, normalizedAlignment: alignment, alignment };
}

export const finalMessage = { isFinal: true };

/** Texts the client sent since the opening message, in order. */
export function sentTexts(sock: ReceivedSocket): { text: string; flush?: boolean }[] {
  return (sock.messages as { text: string; flush?: boolean }[]).slice(1);
}

/** Waits until the socket has received `n` messages. */
export async function waitForMessages(sock: ReceivedSocket, n: number, timeoutMs = 2000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (sock.messages.length < n) {
    if (Date.now() > until) throw new Error(`only ${sock.messages.length} of ${n} messages arrived`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
