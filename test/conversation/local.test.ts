import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { call, setupAgent, speech, startAgentMedia, verifiedAccount } from './fixtures.js';

// A call fully offline on the `local` provider (contract §3): PocketSphinx hears the caller,
// the `echo` model repeats it, espeak-ng speaks. Needs the Debian packages espeak-ng,
// pocketsphinx and pocketsphinx-en-us (.ci/run installs them).

const h = await startHarness();
const media = await startAgentMedia(h);
t.teardown(async () => {
  await media.drain(0);
  await h.close();
});

t.test('local stt + echo llm + espeak tts', async (t) => {
  const setup = await setupAgent(h, async (pid) => {
    const local = await verifiedAccount(h, pid, 'local', null);
    return {
      stt: { account_id: local, model: 'pocketsphinx-en-us' },
      llm: { account_id: local, model: 'echo' },
      tts: { account_id: local, model: 'espeak-ng', voice: 'en-us' },
    };
  }, { greeting: 'Hello, this is the demo agent.' });
  const { caller } = await call(h, media, setup);
  const greeting = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant', 15_000);
  t.equal(greeting.frame.text, 'Hello, this is the demo agent.');
  await caller.waitForCount('turn_complete', 1, 15_000);
  caller.silence(300);
  caller.say(speech('Good morning. I would like to book a table for two people.'));
  caller.silence(1000);
  const user = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'user', 30_000);
  const heard = String(user.frame.text);
  t.ok(heard.split(' ').length >= 3, `PocketSphinx heard words: "${heard}"`);
  const answer = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant' && f.text !== greeting.frame.text, 30_000);
  t.equal(answer.frame.text, `You said: ${heard}`);
  await caller.waitForCount('turn_complete', 2, 30_000);
  t.ok(caller.audioSamplesAfter(user.at) > 24000, 'spoken by espeak-ng');
  caller.hangUp();
  await caller.closed;
});
