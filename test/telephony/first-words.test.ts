import t from 'tap';
import { getTranscript } from '../../src/db/repos/session-transcripts.js';
import { startProviderFakes } from '../fakes/wire/providers.js';
import { call, openAiPipeline, setupAgent, speech } from '../conversation/fixtures.js';
import { answeredOutbound } from './answered-outbound.js';
import { sessionRow, startBed, until } from './helpers.js';

// A caller already talking as the audio starts: a one-word answer in the stream's first frames
// is a turn like any other, on the web socket and on a phone line. The VAD learns the line's
// noise from those frames, and such a word used to become that noise: never heard, no turn,
// the agent silent (found with the transfer test's "Billing.").

const providers = await startProviderFakes();
const bed = await startBed({ media: { pipeline: 'agent' } });
const { h } = bed;
t.teardown(async () => {
  await bed.close();
  await providers.close();
});

/** An agent without a greeting: it waits for the caller's first words. */
const quietAgent = () => setupAgent(h, (pid) => openAiPipeline(h, pid, providers.baseUrl), { store_transcript: true });

async function transcriptOf(sessionId: string) {
  await bed.media!.idle();
  await until(async () => (await sessionRow(h, sessionId)).status === 'completed', 5000, 'settled');
  return (await getTranscript(h.ctx.sql, sessionId)).map((e) => [e.role, e.text]);
}

for (const word of ['Yes?', 'Hello?', 'Billing.']) {
  t.test(`web socket: "${word}" in the first frames is answered`, async (t) => {
    const heard = word.toLowerCase().replace(/[?.]/g, '');
    providers.script.transcripts = [heard];
    providers.script.replies = ['How can I help?'];
    const setup = await quietAgent();
    const { caller, sessionId } = await call(h, bed.media!, setup, {}, speech(word, 16000));
    caller.backgroundNoise(33);  // about -60 dBFS of line noise
    const user = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'user', 10_000);
    t.ok(user.at - caller.marks.get('first words')! < 3000, `the turn was heard ${(user.at - caller.marks.get('first words')!).toFixed(0)} ms after the word began`);
    await caller.waitForCount('turn_complete', 1, 15_000);
    caller.hangUp();
    await caller.closed;
    t.same(await transcriptOf(sessionId), [['user', heard], ['assistant', 'How can I help?']]);
  });
}

t.test('phone line: "Billing." as the callee picks up is answered', async (t) => {
  providers.script.transcripts = ['billing'];
  providers.script.replies = ['Billing, of course.'];
  const setup = await quietAgent();
  const { phone, sessionId } = await answeredOutbound(bed, setup, speech('Billing.', 8000));
  await phone.waitFor((s) => s.marks().length > 0, 15_000, 'the answer played');
  await phone.hangUp();
  t.same(await transcriptOf(sessionId), [['user', 'billing'], ['assistant', 'Billing, of course.']]);
});
