import t from 'tap';
import { Pacer, type Paced } from '../../src/media/pacer.js';

// The shared pacer on a fake clock, driven by poke() (a socket message) as the server does; the
// test body is synchronous, so the real 5 ms interval never fires in between.

/** A call whose frames become due at the given times; pace() sends every frame due. */
class FakeCall implements Paced {
  pacerTick = -1;
  readonly visits: number[] = [];
  readonly sent: { due: number; at: number }[] = [];
  ended = -1;
  constructor(readonly deadlineMs: number, private readonly due: number[]) {}
  pace(nowMs: number): number {
    this.visits.push(nowMs);
    if (this.ended >= 0) return -1;
    if (nowMs >= this.deadlineMs) {
      this.ended = nowMs;
      return -1;
    }
    while (this.due.length && this.due[0] <= nowMs) this.sent.push({ due: this.due.shift()!, at: nowMs });
    return this.due.length ? this.due[0] : -1;
  }
}

const setup = (t: { teardown: (fn: () => void) => void }) => {
  let clock = 1000;
  const pacer = new Pacer(() => clock);
  t.teardown(() => pacer.stop());
  const at = (ms: number) => {
    clock = ms;
    pacer.poke(ms);
  };
  return { pacer, at };
};

t.test('a held frame leaves at the first run from its due time on, not before', async (t) => {
  const { pacer, at } = setup(t);
  const call = new FakeCall(1e9, [1101, 1108]);
  pacer.add(call);
  pacer.wait(call, 1101);
  for (const ms of [1091, 1096]) at(ms);
  t.same(call.sent, [], 'nothing before it is due');
  at(1101.5);
  t.same(call.sent, [{ due: 1101, at: 1101.5 }]);
  at(1106.5); // the next frame is due later within this tick: visited, kept for the next run
  at(1107); // runs are at least a tick apart: no run
  at(1111.5);
  t.same(call.sent[1], { due: 1108, at: 1111.5 });
});

t.test('a call ahead by the lead is visited about once per frame, not on every tick', async (t) => {
  const { pacer, at } = setup(t);
  const due = Array.from({ length: 50 }, (_, i) => 1010 + i * 20);
  const call = new FakeCall(1e9, [...due]);
  pacer.add(call);
  pacer.wait(call, due[0]);
  for (let ms = 1000; ms <= 2010; ms += 1) at(ms);
  t.equal(call.sent.length, 50, 'every frame sent');
  t.ok(call.sent.every((s) => s.at >= s.due && s.at < s.due + 5), 'each within a tick of its due time');
  t.ok(call.visits.length <= 100, `${call.visits.length} visits for 50 frames (every tick: 200)`);
});

t.test('calls that hold nothing are not visited; a deadline ends its call at the next run', async (t) => {
  const { pacer, at } = setup(t);
  const idle = new FakeCall(1e9, []);
  const short = new FakeCall(1050, []);
  pacer.add(idle);
  pacer.add(short);
  for (let ms = 1000; ms < 1050; ms += 5) at(ms);
  t.equal(idle.visits.length + short.visits.length, 0);
  at(1052);
  t.equal(short.ended, 1052, 'ended past its deadline');
  t.equal(idle.visits.length, 0);
});

t.test('a late run (timer starved for longer than the wheel) still sends what waited', async (t) => {
  const { pacer, at } = setup(t);
  const a = new FakeCall(1e9, [1010]);
  const b = new FakeCall(1e9, [1300]);
  pacer.add(a);
  pacer.add(b);
  pacer.wait(a, 1010);
  pacer.wait(b, 1300);
  at(1000);
  at(3000);
  t.same(a.sent, [{ due: 1010, at: 3000 }]);
  t.same(b.sent, [{ due: 1300, at: 3000 }]);
});

t.test('an earlier wait supersedes a later one; a deleted call is not visited', async (t) => {
  const { pacer, at } = setup(t);
  const a = new FakeCall(1e9, [1020]);
  const gone = new FakeCall(1e9, [1010]);
  pacer.add(a);
  pacer.add(gone);
  pacer.wait(a, 1040);
  pacer.wait(a, 1020);
  pacer.wait(a, 1030); // already waiting for an earlier tick
  pacer.wait(gone, 1010);
  pacer.delete(gone);
  for (let ms = 1000; ms <= 1100; ms += 5) at(ms);
  t.same(a.sent, [{ due: 1020, at: 1020 }]);
  t.equal(a.visits.length, 1, 'visited once: the superseded entries are skipped');
  t.equal(gone.visits.length, 0);
});
