// Backpressure: a far end that stops reading. Above MAX_BUFFERED_BYTES of socket backlog no
// frame is written; the call's output ring keeps the newest 400 ms and counts what it drops;
// once the backlog drains, the newest audio leaves at real time again (never a burst beyond
// the lead). The real echo pipeline (native framer, VAD, resampler) produces the frames.
import t from 'tap';
import { EchoCall, OUTPUT_QUEUE_MS } from '../../src/media/echo-call.js';
import { PACE_LEAD_MS } from '../../src/media/pacer.js';
import { MAX_BUFFERED_BYTES } from '../../src/media/voice-session.js';
import { pacedSession } from './paced-session.js';

const IN_FRAME_BYTES = 640; // 20 ms at 16 kHz

/** 20 ms of caller audio at a level that numbers it (the resampler passes a constant level). */
const level = (n: number) => 50 * (n + 1);
const callerFrame = (n: number) => new Uint8Array(new Int16Array(IN_FRAME_BYTES / 2).fill(level(n)).buffer);
/** Which caller frame an echoed frame came from. */
function frameNumber(frame: Uint8Array): number {
  const pcm = new Int16Array(frame.buffer, frame.byteOffset, frame.byteLength / 2);
  return Math.round(pcm[pcm.length >> 1] / 50) - 1;
}

t.test('a far end that stops reading: nothing is written, the ring keeps the newest audio, then pacing resumes', async (t) => {
  const s = pacedSession(t, () => new EchoCall(16000, 24000));
  const talk = (frames: number) => {
    for (let i = 0; i < frames; i++) {
      s.session.onAudio(callerFrame(i));
      s.run(s.now() + 20);
    }
  };
  talk(25);
  const flowing = s.transport.sent.length;
  t.ok(flowing >= 20, `${flowing} frames flowed while the socket drained`);
  t.equal(s.session.droppedFrames, 0);

  s.transport.backlogBytes = MAX_BUFFERED_BYTES + 1;
  talk(100); // 2 s of caller audio into a socket that takes nothing
  t.equal(s.transport.sent.length, flowing, 'no frame written while the backlog is over the limit');
  const ringFrames = OUTPUT_QUEUE_MS / 20;
  const dropped = s.session.droppedFrames;
  t.ok(dropped >= 100 - ringFrames && dropped <= 100 - ringFrames + 8, `${dropped} frames dropped, oldest first (ring ${ringFrames})`);

  s.transport.backlogBytes = 0;
  const resumedAt = s.now();
  s.run(resumedAt + 1000);
  const after = s.transport.sent.slice(flowing);
  t.ok(after.length >= ringFrames - 2 && after.length <= ringFrames, `${after.length} held frames sent after the drain`);
  after.forEach((f, i) => t.ok(f.atMs >= resumedAt + i * 20 - PACE_LEAD_MS - 5, `frame ${i} within the lead`));
  t.ok(after.every((f) => f.frame.byteLength === 960), '20 ms frames at 24 kHz');
  const numbers = after.map((f) => frameNumber(f.frame));
  t.same(numbers, numbers.slice().sort((a, b) => a - b), 'in order');
  t.ok(numbers[0] >= 100 - ringFrames - 2, `the oldest were dropped: the first sent after the drain is caller frame ${numbers[0]}`);
  t.ok(numbers.at(-1)! >= 98, `the newest audio is kept (last: ${numbers.at(-1)})`);
  t.equal(s.session.droppedFrames, dropped, 'nothing more dropped once the socket drains');
  t.notOk(s.session.ending, 'the call goes on');
});
