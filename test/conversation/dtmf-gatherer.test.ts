// Caller keypresses become one turn once the caller pauses; stop() drops what is pending.
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { DtmfGatherer } from '../../src/conversation/dtmf-gatherer.js';

t.test('keys pressed in a burst are handed over once, after the pause', async (t) => {
  const got: string[] = [];
  const g = new DtmfGatherer((d) => got.push(d), 200);
  g.add('1');
  // Due before the gatherer's timer, so it always runs first, however late.
  await sleep(50);
  g.add('2');
  g.add('#');
  t.same(got, [], 'nothing while the caller is still pressing');
  await sleep(400);
  t.same(got, ['12#']);
  g.add('9');
  await sleep(400);
  t.same(got, ['12#', '9'], 'the next burst is a new turn');
  g.stop();
});

t.test('stop drops pending keys', async (t) => {
  const got: string[] = [];
  const g = new DtmfGatherer((d) => got.push(d), 20);
  g.add('5');
  g.stop();
  await sleep(100);
  t.same(got, []);
});
