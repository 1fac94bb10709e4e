// After a stall of this process's event loop the caller's audio from the stall is read late;
// the echo reference must hold the silence the caller heard meanwhile (CallPipeline.underrun),
// or that backlog is matched against audio sent after the stall. A far end that ran dry
// because the pipeline had nothing to send (slow speech synthesis) is not a stall.
import t from 'tap';
import type { CallHost, CallPipeline } from '../../src/media/call-pipeline.js';
import { Pacer, STALL_MS } from '../../src/media/pacer.js';
import { pacedSession } from './paced-session.js';

class FakePipeline implements CallPipeline {
  frames = 0;
  readonly underruns: number[] = [];
  readonly sentAt: number[] = [];
  private readonly frame = new Uint8Array(960);
  constructor(private readonly clock: () => number) {}
  pushAudio(): number {
    return 1;
  }
  nextFrame(): Uint8Array | null {
    return this.frames > 0 ? this.frame : null;
  }
  frameSent(): void {
    this.frames--;
    this.sentAt.push(this.clock());
  }
  underrun(ms: number): void {
    this.underruns.push(ms);
  }
  onDtmf(): void {}
  start(_host: CallHost): void {}
  stop() {
    return [];
  }
  droppedFrames = 0;
}

const setup = (t: { teardown: (fn: () => void) => void }) => pacedSession(t, (now) => new FakePipeline(now));

t.test('a stall while frames wait: the silence the far end played goes to the pipeline first', async (t) => {
  const s = setup(t);
  s.pipeline.frames = 100;
  s.hooks.kick(s.session);
  s.run(10_200);
  t.same(s.pipeline.underruns, [], 'no underrun while the loop runs');
  const sentBefore = s.pipeline.sentAt.length;
  s.jump(200);
  s.run(10_400 + 5);
  t.equal(s.pipeline.underruns.length, 1, 'one underrun for the stall');
  // The far end had the 60 ms lead, then silence until the first run after the stall.
  t.ok(Math.abs(s.pipeline.underruns[0] - 140) <= 5, `${s.pipeline.underruns[0]} ms of silence (about 200 - 60)`);
  t.ok(s.pipeline.sentAt.length > sentBefore, 'frames flow again');
});

t.test('slow synthesis (the pipeline had nothing to send) is not a stall', async (t) => {
  const s = setup(t);
  s.pipeline.frames = 5;
  s.hooks.kick(s.session);
  s.run(10_500); // the 5 frames are sent, then the far end runs dry while the pacer keeps running
  s.pipeline.frames = 20;
  s.hooks.kick(s.session);
  s.run(10_800);
  t.same(s.pipeline.underruns, []);
});

t.test('a stall long past is not padded when speech starts later', async (t) => {
  const s = setup(t);
  s.run(10_100);
  s.jump(300);
  s.run(10_400 + STALL_MS + 20); // the loop runs again; the backlog was read
  s.pipeline.frames = 10;
  s.hooks.kick(s.session);
  s.run(10_700);
  t.same(s.pipeline.underruns, []);
});

t.test('Pacer.stalledMs: the overlap with the last stall, only right after it', async (t) => {
  let clock = 0;
  const pacer = new Pacer(() => clock);
  t.teardown(() => pacer.stop());
  pacer.add({ deadlineMs: 1e9, pacerTick: -1, pace: () => -1 });
  for (clock = 0; clock <= 100; clock += 5) pacer.poke(clock);
  clock = 350; // stalled from 100 to 350
  t.equal(pacer.stalledMs(160, 350), 190);
  t.equal(pacer.stalledMs(0, 350), 250);
  for (clock = 355; clock <= 400; clock += 5) pacer.poke(clock);
  t.equal(pacer.stalledMs(160, 400), 0, 'the stall ended STALL_MS or more ago');
});
