import t from 'tap';
import { registry } from '../../src/metrics/registry.js';
import { LONG_REPLY, call, espeakPipeline, isAssistant, isUser, openAiPipeline, setupAgent, speech, startCallTests } from './fixtures.js';

// Barge-in through the real media socket: the caller's speech stops the agent at once; the
// agent's own voice echoed back and background noise do not; with `backchannel` a short
// "mm-hm" pauses the answer and it resumes.

const { h, fake, media } = await startCallTests(t);


t.test('barge-in while the agent speaks: interrupted with heard, audio stops, history truncated', async (t) => {
  fake.script.transcripts = ['tell me your hours', 'stop please'];
  fake.script.replies = [LONG_REPLY, 'Sure.'];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl));
  const { caller } = await call(h, media, setup);
  caller.silence(200);
  caller.say(speech('Tell me your hours.'));
  caller.silence(800);
  const asked = await caller.waitFor(isUser, 15_000);
  // Let about two seconds of the answer play, then talk over it.
  const until = performance.now() + 20_000;
  while (caller.audioSamplesAfter(asked.at) < 24000 * 2 && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
  caller.say(speech('Stop please, I have a question.'), 'barge');
  caller.silence(1500);
  const interrupted = await caller.waitFor((f) => f.type === 'interrupted', 10_000);
  const onset = caller.marks.get('barge')!;
  t.ok(interrupted.at - onset < 600, `interrupted ${Math.round(interrupted.at - onset)} ms after the caller started`);
  const heard = String(interrupted.frame.heard);
  t.ok(heard.length > 0 && LONG_REPLY.startsWith(heard.split(' ').slice(0, 3).join(' ')), `heard is a prefix of the answer: "${heard}"`);
  t.ok(heard.length < LONG_REPLY.length / 2, 'only part of the answer was heard');

  // Audio stops: within the pacing lead plus a frame or two, nothing more of the answer arrives.
  const after = caller.audio.filter((a) => a.at > interrupted.at + 150);
  const firstUserAfter = await caller.waitFor((f) => isUser(f) && f.text === 'stop please', 15_000);
  t.equal(after.filter((a) => a.at < firstUserAfter.at).length, 0, 'no answer audio after the interruption');
  const truncated = caller.text.find((r) => isAssistant(r.frame) && r.at >= interrupted.at - 5);
  t.equal(truncated?.frame.text, heard, 'the assistant transcript carries only what was heard');
  t.notOk(caller.frames('turn_complete').length > 0 && caller.text.findIndex((r) => r.frame.type === 'turn_complete') < caller.text.indexOf(interrupted), 'no turn_complete for the cut answer before it');

  await caller.waitFor((f) => isAssistant(f) && f.text === 'Sure.', 15_000);
  const chats = fake.requests.filter((r) => r.path === '/v1/chat/completions');
  const last = JSON.parse(chats[chats.length - 1].body.toString());
  const assistantMsgs = last.messages.filter((m: { role: string }) => m.role === 'assistant');
  t.equal(assistantMsgs[assistantMsgs.length - 1].content, heard, 'the model sees the truncated answer');
  caller.hangUp();
  await caller.closed;
});

t.test("the agent's own voice echoed back does not interrupt, and is not transcribed", async (t) => {
  fake.script.transcripts = ['tell me your hours'];
  fake.script.replies = [LONG_REPLY];
  const setup = await setupAgent(h, (pid) => espeakPipeline(h, pid, fake.baseUrl));
  const { caller } = await call(h, media, setup);
  caller.enableEcho(80, 12);
  caller.silence(200);
  caller.say(speech('Tell me your hours.'));
  caller.silence(800);
  const asked = await caller.waitFor(isUser, 15_000);
  const before = fake.requests.filter((r) => r.path === '/v1/audio/transcriptions').length;
  await caller.waitFor((f) => f.type === 'turn_complete', 40_000);
  t.equal(caller.frames('interrupted').length, 0, 'no interruption from echo');
  t.ok(caller.audioSamplesAfter(asked.at) > 24000 * 5, 'the whole answer played');
  const answer = caller.text.find((r) => isAssistant(r.frame) && r.at > asked.at);
  t.equal(answer?.frame.text, LONG_REPLY);
  t.equal(fake.requests.filter((r) => r.path === '/v1/audio/transcriptions').length, before, 'echo was never sent to speech recognition');
  caller.hangUp();
  await caller.closed;
});

t.test('background noise during the answer does not interrupt', async (t) => {
  fake.script.transcripts = ['tell me your hours'];
  fake.script.replies = [LONG_REPLY];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl));
  const { caller } = await call(h, media, setup);
  // A noisy room: steady noise from the start, the caller speaking over it.
  caller.backgroundNoise(600);
  caller.silence(1000);
  caller.say(speech('Tell me your hours.'));
  caller.silence(800);
  await caller.waitFor(isUser, 15_000);
  await caller.waitFor((f) => f.type === 'turn_complete', 30_000);
  t.equal(caller.frames('interrupted').length, 0);
  caller.hangUp();
  await caller.closed;
});

t.test('with backchannel on, a short "mm-hm" pauses the answer and it resumes', async (t) => {
  fake.script.transcripts = ['tell me your hours', 'mm hmm'];
  fake.script.replies = [LONG_REPLY];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { backchannel: true });
  const chatsBefore = fake.requests.filter((r) => r.path === '/v1/chat/completions').length;
  const falseBefore = await falseInterruptions();
  const { caller } = await call(h, media, setup);
  caller.silence(200);
  caller.say(speech('Tell me your hours.'));
  caller.silence(800);
  const asked = await caller.waitFor(isUser, 15_000);
  while (caller.audioSamplesAfter(asked.at) < 24000 * 1.5) await new Promise((r) => setTimeout(r, 20));
  caller.say(speech('Mm-hm.'));
  await caller.waitFor((f) => f.type === 'interrupted', 10_000);
  await caller.waitFor((f) => f.type === 'turn_complete', 30_000);
  const answer = caller.text.find((r) => isAssistant(r.frame) && r.at > asked.at);
  t.equal(answer?.frame.text, LONG_REPLY, 'the whole answer was spoken');
  t.equal(caller.text.filter((r) => isUser(r.frame)).length, 1, 'the backchannel was not taken as a turn');
  t.equal(fake.requests.filter((r) => r.path === '/v1/chat/completions').length - chatsBefore, 1, 'no new answer was generated');
  t.equal((await falseInterruptions()) - falseBefore, 1, 'counted once as a false interruption (/metrics)');
  caller.hangUp();
  await caller.closed;
});

async function falseInterruptions(): Promise<number> {
  const m = await registry.getSingleMetric('voice_media_false_interruptions_total')?.get();
  return m?.values[0]?.value ?? 0;
}

t.test('with backchannel on, the agent acknowledges a long caller turn without taking the floor', async (t) => {
  fake.script.transcripts = ['a long story'];
  fake.script.replies = ['I see.'];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { backchannel: true });
  const { caller } = await call(h, media, setup);
  caller.silence(300);
  const sentences = ['I want to tell you about my trip.', 'We drove to the coast last week.', 'The weather was lovely all the time.', 'Then the car broke down near a village.', 'A farmer helped us tow it to a garage.'];
  caller.say(speech(sentences[0]), 'story');
  // espeak-ng pads each sentence with a little silence: short pauses, shorter than endpointing.
  for (const s of sentences.slice(1)) caller.say(speech(s));
  const user = await caller.waitFor(isUser, 40_000);
  const start = caller.marks.get('story')!;
  const during = caller.audio.filter((a) => a.at > start + 4000 && a.at < user.at);
  t.ok(during.length >= 5, `acknowledgement audio during the caller's turn (${during.length} frames)`);
  t.equal(caller.frames('interrupted').length, 0);
  t.equal(user.frame.text, 'a long story', 'the turn was not cut by the acknowledgement');
  await caller.waitFor((f) => isAssistant(f) && f.text === 'I see.', 15_000);
  t.notOk(caller.frames('transcript').some((f) => f.role === 'assistant' && f.text !== 'I see.'), 'acknowledgements are not transcribed');
  caller.hangUp();
  await caller.closed;
});
