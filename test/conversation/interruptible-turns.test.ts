import t from 'tap';
import { Phrases } from '../../src/conversation/phrases.js';
import type { ScriptedCaller } from './caller.js';
import { LONG_REPLY, call, isAssistant, isUser, openAiPipeline, sessionRow, setupAgent, speech, startCallTests } from './fixtures.js';

// What the agent says on its own is interrupted like an answer (cascade, real media socket):
// the greeting, the idle reminder and the goodbyes. `interrupted` carries what was heard, the
// audio stops, the transcript and the model's history keep only that, and the caller's words
// are answered. interruptible_greeting: false keeps the greeting playing; a backchannel over
// the greeting lets it resume.

const { h, fake, media } = await startCallTests(t);
const GREETING = 'Hello Ann, thank you for calling the city clinic. I can help you book, move or cancel an appointment, and answer questions about our services and opening hours.';
const greetingAgent = (fields: Record<string, unknown> = {}) => setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { greeting: GREETING.replace('Ann', '{{name}}'), ...fields });

/** Waits until `ms` of agent audio arrived after `from` (monotonic ms). */
async function agentPlayed(caller: ScriptedCaller, ms: number, from = 0): Promise<void> {
  const end = performance.now() + 20_000;
  while (caller.audioSamplesAfter(from) < (caller.rateOut * ms) / 1000) {
    if (performance.now() > end) throw new Error(`no ${ms} ms of agent audio`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const chatRequests = () => fake.requests.filter((r) => r.path === '/v1/chat/completions');
const lastChatMessages = () => (JSON.parse(chatRequests().at(-1)!.body.toString()) as { messages: { role: string; content: string | null }[] }).messages;

/** `heard` is a non-empty proper prefix (whole words) of `full`. */
function isCutPrefix(heard: unknown, full: string): boolean {
  const text = String(heard);
  return text.length > 0 && text.length < full.length && full.startsWith(text);
}

t.test('the greeting: interrupted with heard, the audio stops, the caller is answered, the history holds the heard part', async (t) => {
  fake.script.transcripts = ['what are your hours'];
  fake.script.replies = ['We open at nine.'];
  const { caller } = await call(h, media, await greetingAgent());
  await agentPlayed(caller, 1500);
  caller.say(speech('What are your hours?'), 'barge');
  caller.silence(1500);
  const interrupted = await caller.waitFor((f) => f.type === 'interrupted', 10_000);
  t.ok(interrupted.at - caller.marks.get('barge')! < 600, `interrupted ${Math.round(interrupted.at - caller.marks.get('barge')!)} ms after the caller started`);
  const heard = String(interrupted.frame.heard);
  t.ok(isCutPrefix(heard, GREETING) && heard.length < GREETING.length / 2, `heard is a prefix of the greeting: "${heard}"`);
  const cut = await caller.waitFor(isAssistant);
  t.equal(cut.frame.text, heard, 'the greeting transcript is what was heard');
  const user = await caller.waitFor(isUser, 15_000);
  t.equal(user.frame.text, 'what are your hours');
  t.equal(caller.audio.filter((a) => a.at > interrupted.at + 150 && a.at < user.at).length, 0, 'no greeting audio after the interruption');
  await caller.waitFor((f) => isAssistant(f) && f.text === 'We open at nine.', 15_000);
  t.same(lastChatMessages().slice(1), [{ role: 'assistant', content: heard }, { role: 'user', content: 'what are your hours' }], 'the model sees the greeting as heard');
  t.equal(caller.frames('turn_complete').length, 1, 'turn_complete for the answer only');
  caller.hangUp();
  await caller.closed;
});

t.test('interruptible_greeting false: the greeting plays to the end, answers are still interrupted', async (t) => {
  fake.script.transcripts = ['tell me your hours', 'stop please'];
  fake.script.replies = [LONG_REPLY, 'Sure.'];
  const { caller } = await call(h, media, await greetingAgent({ interruptible_greeting: false }));
  await agentPlayed(caller, 1500);
  caller.say(speech('Hello, can you hear me?'));
  const greeted = await caller.waitFor((f) => f.type === 'turn_complete', 15_000);
  t.equal(caller.frames('interrupted').length, 0, 'the greeting was not interrupted');
  t.same(caller.frames('transcript').map((f) => f.text), [GREETING]);

  caller.silence(300);
  caller.say(speech('Tell me your hours.'));
  caller.silence(800);
  const asked = await caller.waitFor((f) => isUser(f) && f.text === 'tell me your hours', 15_000);
  await agentPlayed(caller, 1500, asked.at);
  caller.say(speech('Stop please, I have a question.'));
  caller.silence(1500);
  const interrupted = await caller.waitFor((f) => f.type === 'interrupted', 10_000);
  t.ok(interrupted.at > greeted.at);
  t.ok(isCutPrefix(interrupted.frame.heard, LONG_REPLY), `the answer was interrupted: "${String(interrupted.frame.heard)}"`);
  await caller.waitFor((f) => isAssistant(f) && f.text === 'Sure.', 15_000);
  caller.hangUp();
  await caller.closed;
});

t.test('with backchannel on, "mm-hm" over the greeting pauses it and it resumes', async (t) => {
  fake.script.transcripts = ['mm hmm'];
  const chats = chatRequests().length;
  const { caller } = await call(h, media, await greetingAgent({ backchannel: true }));
  await agentPlayed(caller, 1500);
  caller.say(speech('Mm-hm.'));
  await caller.waitFor((f) => f.type === 'interrupted', 10_000);
  await caller.waitFor((f) => f.type === 'turn_complete', 20_000);
  t.same(caller.frames('transcript').map((f) => f.text), [GREETING], 'the whole greeting, and no caller turn');
  t.equal(chatRequests().length, chats, 'nothing was answered');
  caller.hangUp();
  await caller.closed;
});

t.test('the idle reminder: interrupted, and the caller is answered', async (t) => {
  // A slow voice, so that the reminder lasts about three seconds.
  fake.script.msPerChar = 150;
  t.teardown(() => void (fake.script.msPerChar = undefined));
  fake.script.transcripts = ['yes i am here'];
  fake.script.replies = ['Good, how can I help?'];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { idle_warn_seconds: 1, idle_hangup_seconds: 30 });
  const { caller } = await call(h, media, setup);
  await agentPlayed(caller, 1200);
  caller.say(speech('Yes, I am here.'));
  caller.silence(1500);
  const interrupted = await caller.waitFor((f) => f.type === 'interrupted', 10_000);
  t.ok(isCutPrefix(interrupted.frame.heard, Phrases.idleReminder), `heard is a prefix of the reminder: "${String(interrupted.frame.heard)}"`);
  t.equal((await caller.waitFor(isAssistant)).frame.text, interrupted.frame.heard, 'the reminder transcript is what was heard');
  await caller.waitFor((f) => isAssistant(f) && f.text === 'Good, how can I help?', 15_000);
  t.same(lastChatMessages().slice(1), [{ role: 'assistant', content: interrupted.frame.heard }, { role: 'user', content: 'yes i am here' }]);
  caller.hangUp();
  await caller.closed;
});

t.test('the idle goodbye: interrupted, the hang-up is called off and the conversation goes on', async (t) => {
  fake.script.transcripts = ['wait i am still here'];
  fake.script.replies = ['Great, how can I help?'];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { idle_hangup_seconds: 5 });
  const { caller, sessionId } = await call(h, media, setup);
  await agentPlayed(caller, 800);
  caller.say(speech('Wait, I am still here.'));
  caller.silence(1500);
  const interrupted = await caller.waitFor((f) => f.type === 'interrupted', 10_000);
  t.ok(isCutPrefix(interrupted.frame.heard, Phrases.idleGoodbye), `heard is a prefix of the goodbye: "${String(interrupted.frame.heard)}"`);
  const answer = await caller.waitFor((f) => isAssistant(f) && f.text === 'Great, how can I help?', 15_000);
  await caller.waitFor((f) => f.type === 'turn_complete' && caller.text.some((r) => r.frame === f && r.at >= answer.at), 10_000);
  await new Promise((r) => setTimeout(r, 1500));
  t.notOk(caller.closedInfo, 'the call goes on');
  t.equal(caller.frames('session_ended').length, 0);
  caller.hangUp();
  await caller.closed;
  await media.idle();
  const row = await sessionRow(h, sessionId);
  t.same([row.status, row.end_reason], ['completed', 'caller_hangup']);
});

t.test('the max-duration goodbye: interrupted, the caller is heard, the call still ends at the limit', async (t) => {
  fake.script.transcripts = ['wait one second'];
  const chats = chatRequests().length;
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { max_duration_seconds: 10 });
  const { caller, sessionId } = await call(h, media, setup);
  const started = performance.now();
  await agentPlayed(caller, 800);
  caller.say(speech('Wait one second.'));
  const interrupted = await caller.waitFor((f) => f.type === 'interrupted', 10_000);
  t.ok(isCutPrefix(interrupted.frame.heard, Phrases.maxDurationGoodbye), `heard is a prefix of the goodbye: "${String(interrupted.frame.heard)}"`);
  const ended = await caller.waitFor((f) => f.type === 'session_ended', 12_000);
  t.equal(ended.frame.reason, 'max_duration');
  t.ok(ended.at - started >= 9500 && ended.at - started <= 10_600, `ended at the limit (${Math.round(ended.at - started)} ms)`);
  t.same(caller.frames('transcript').map((f) => [f.role, f.text]), [['assistant', interrupted.frame.heard], ['user', 'wait one second']], 'the caller was heard');
  t.equal(chatRequests().length, chats, 'and not answered: there is no time left');
  await caller.closed;
  await media.idle();
  t.equal((await sessionRow(h, sessionId)).end_reason, 'max_duration');
});
