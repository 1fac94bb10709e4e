import type { FakeMediaStream } from '../fakes/twilio/media-client.js';

/**
 * The greeting's μ-law as the phone played it (the media before the server's first mark): each
 * message plays after the previous one at 8 bytes per ms, and a `clear` drops what had not
 * played yet.
 */
export function greetingHeard(phone: FakeMediaStream): Buffer {
  const played: Buffer[] = [];
  let queued: { from: number; bytes: Buffer }[] = [];
  let endsAt = 0;
  for (const m of phone.received) {
    if (m.event === 'mark') break;
    if (m.event === 'media') {
      const bytes = Buffer.from(String((m.json.media as { payload?: unknown }).payload ?? ''), 'base64');
      const from = Math.max(m.atMs, endsAt);
      queued.push({ from, bytes });
      endsAt = from + bytes.length / 8;
    } else if (m.event === 'clear') {
      for (const q of queued) played.push(q.bytes.subarray(0, Math.max(0, Math.round((m.atMs - q.from) * 8))));
      queued = [];
      endsAt = m.atMs;
    }
  }
  return Buffer.concat([...played, ...queued.map((q) => q.bytes)]);
}
