// runPeriodically: a run at once, the next one an interval after it ends, never two at a
// time, failures do not stop the loop, stop waits for the run in progress.
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { runPeriodically } from '../../src/shared/periodic.js';

t.test('runs at once, then after each run ends; a failure does not stop it', async (t) => {
  let runs = 0;
  let active = 0;
  let overlap = false;
  const errors: unknown[] = [];
  const stop = runPeriodically(
    async () => {
      runs++;
      active++;
      if (active > 1) overlap = true;
      await sleep(30);
      active--;
      if (runs === 2) throw new Error('boom');
    },
    10,
    (err) => errors.push(err),
  );
  await sleep(400);
  await stop();
  t.ok(runs >= 3, `${runs} runs`);
  t.notOk(overlap, 'never two runs at a time');
  t.equal(errors.length, 1);
  t.equal((errors[0] as Error).message, 'boom');
  const after = runs;
  await sleep(100);
  t.equal(runs, after, 'nothing runs after stop');
});

t.test('stop waits for the run in progress', async (t) => {
  let finished = false;
  const stop = runPeriodically(
    async () => {
      await sleep(80);
      finished = true;
    },
    1000,
    () => {},
    { unref: true },
  );
  await sleep(10);
  await stop();
  t.ok(finished, 'the run ended before stop resolved');
});
