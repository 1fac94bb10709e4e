import t from 'tap';
import { OutputQueue } from '../../src/media/output-queue.js';

t.test('frames come out in order across the ring wrap, through fixed views', async (t) => {
  const q = new OutputQueue(8000, 100); // 160-sample frames, 5 slots
  t.equal(q.frameSamples, 160);
  t.equal(q.capacityFrames, 5);
  const chunk = new Int16Array(100);
  let next = 0;
  const seen: number[] = [];
  const views = new Set<Uint8Array>();
  for (let round = 0; round < 40; round++) {
    for (let i = 0; i < chunk.length; i++) chunk[i] = next++;
    q.write(chunk, chunk.length);
    while (q.readyFrames > 0) {
      const view = q.peek()!;
      views.add(view);
      const samples = q.peekSamples()!;
      t.equal(view.byteLength, 320);
      seen.push(samples[0], samples[159]);
      q.shift();
    }
  }
  t.equal(views.size, q.heldFrames, "only the ring's own views are handed out");
  for (let f = 0; f < seen.length / 2; f++) t.same([seen[2 * f], seen[2 * f + 1]], [f * 160, f * 160 + 159]);
  t.equal(q.droppedFrames, 0);
});

t.test('a full ring drops the oldest frames and counts them', async (t) => {
  const q = new OutputQueue(8000, 100);
  const frame = new Int16Array(160);
  for (let f = 0; f < 12; f++) {
    frame.fill(f);
    q.write(frame, 160);
  }
  t.ok(q.droppedFrames >= 7);
  t.ok(q.readyFrames <= 5);
  const first = q.peekSamples()![0];
  t.equal(first, 12 - q.readyFrames, 'the newest frames survive');
  q.clear();
  t.equal(q.readyFrames, 0);
  t.equal(q.peek(), null);
});
