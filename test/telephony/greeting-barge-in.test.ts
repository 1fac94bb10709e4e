import t from 'tap';
import { getTranscript } from '../../src/db/repos/session-transcripts.js';
import type { FakeMediaStream } from '../fakes/twilio/media-client.js';
import { startProviderFakes } from '../fakes/wire/providers.js';
import { openAiPipeline, setupAgent, speech } from '../conversation/fixtures.js';
import { greetingHeard } from './greeting-heard.js';
import { answeredOutbound } from './answered-outbound.js';
import { sessionRow, startBed, until } from './helpers.js';

// The greeting of an outbound phone call through the real conversation engine and the Twilio
// bridge: the callee talking over it cuts it (`clear`, the stored transcript keeps what was
// heard, the callee's words are answered), except a short pickup word ("hello?") in its first
// second: the phone stops at once all the same (`clear`), and the greeting resumes from what the
// callee heard, so they hear all of it; a sentence there cuts it.

const GREETING = 'Hello Ann, this is the city clinic calling about your appointment tomorrow morning. We would like to confirm the time with you and answer any questions you might have.';
const providers = await startProviderFakes();
const bed = await startBed({ media: { pipeline: 'agent' } });
const { h, fake } = bed;
t.teardown(async () => {
  await bed.close();
  await providers.close();
});

/** An outbound call to a callee on the fake phone line, the agent greeting with GREETING. */
async function outboundCall(fields: Record<string, unknown> = {}, firstWords?: Int16Array): Promise<{ phone: FakeMediaStream; sessionId: string }> {
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, providers.baseUrl), { greeting: GREETING.replace('Ann', '{{name}}'), store_transcript: true, ...fields });
  const { phone, sessionId } = await answeredOutbound(bed, setup, firstWords);
  return { phone, sessionId };
}

/** Monotonic wall-clock ms of the greeting's first frame at the phone. */
async function greetingStarts(phone: FakeMediaStream): Promise<number> {
  await phone.waitFor((s) => s.messages('media').length > 0, 10_000, 'the greeting');
  return phone.messages('media')[0].atMs;
}

/** An outbound call two seconds into its greeting, the callee's next turn scripted as `transcript` answered by `reply`. */
async function twoSecondsIntoGreeting(transcript: string, reply: string) {
  providers.script.transcripts = [transcript];
  providers.script.replies = [reply];
  const { phone, sessionId } = await outboundCall();
  const startedAt = await greetingStarts(phone);
  await until(() => Date.now() >= startedAt + 2000, 5000, 'two seconds of greeting');
  return { phone, sessionId };
}

async function hangUpAndTranscript(phone: FakeMediaStream, sessionId: string) {
  await phone.hangUp();
  await bed.media!.idle();
  await until(async () => (await sessionRow(h, sessionId)).status === 'completed', 5000, 'settled');
  return getTranscript(h.ctx.sql, sessionId);
}

t.test('the callee talking over the greeting: clear, the stored greeting cut to what was heard, the words answered', async (t) => {
  const { phone, sessionId } = await twoSecondsIntoGreeting('sorry who is calling', 'This is the city clinic.');
  phone.say(speech('Sorry, who is calling?', 8000), 'barge');
  await phone.waitFor((s) => s.clears() > 0, 5000, 'clear');
  const clear = phone.messages('clear')[0];
  const onset = phone.saidAt.get('barge')!;
  t.ok(clear.atMs - onset < 800, `clear ${clear.atMs - onset} ms after the callee started`);
  t.equal(phone.marks().length, 0, 'the cut greeting is not marked complete');
  await new Promise((r) => setTimeout(r, 400));
  t.equal(phone.messages('media').filter((m) => m.atMs > clear.atMs + 150 && m.atMs < clear.atMs + 400).length, 0, 'the greeting stops');

  // The callee's words are the next turn, answered and marked complete.
  await phone.waitFor((s) => s.marks().length > 0, 15_000, 'the answer');
  const entries = await hangUpAndTranscript(phone, sessionId);
  t.same(entries.map((e) => e.role), ['assistant', 'user', 'assistant']);
  const greeting = entries[0].text;
  t.ok(greeting.length > 0 && GREETING.startsWith(greeting) && greeting.length < GREETING.length / 2, `the stored greeting is what was heard: "${greeting}"`);
  t.same(entries.slice(1).map((e) => e.text), ['sorry who is calling', 'This is the city clinic.']);
  const answer = JSON.parse(providers.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!.body.toString()) as { messages: { role: string; content: string }[] };
  t.same(answer.messages.slice(1).map((m) => m.content), [greeting, 'sorry who is calling'], 'the model saw the greeting as heard');
});

t.test('outbound: "hello?" in the first second of the greeting stops the phone at once, then the greeting resumes and is heard whole', async (t) => {
  // What the whole greeting sounds like on this line, nobody talking over it.
  const quiet = await outboundCall();
  await quiet.phone.waitFor((s) => s.marks().length > 0, 15_000, 'the greeting played');
  const whole = greetingHeard(quiet.phone);
  await hangUpAndTranscript(quiet.phone, quiet.sessionId);

  const chats = providers.requests.filter((r) => r.path === '/v1/chat/completions').length;
  const { phone, sessionId } = await outboundCall();
  await greetingStarts(phone);
  phone.say(speech('Hello?', 8000), 'pickup');
  await phone.waitFor((s) => s.clears() > 0, 5000, 'clear');
  const cleared = phone.messages('clear')[0].atMs - phone.saidAt.get('pickup')!;
  t.ok(cleared < 500, `the phone stopped ${cleared} ms after the callee started (was: played on for ~700 ms)`);
  // The word was only a pickup: the greeting resumes and plays to the end (its mark comes back).
  await phone.waitFor((s) => s.marks().length > 0, 15_000, 'the greeting played');
  t.equal(phone.clears(), 1, 'one clear, at the pickup word');
  const heard = greetingHeard(phone);
  t.ok(Math.abs(heard.length - whole.length) <= 8 * 60, `the callee heard ${heard.length / 8} ms of the ${whole.length / 8} ms greeting`);
  t.ok(heard.subarray(-8000).equals(whole.subarray(-8000)), 'its last second as it should be');
  t.ok(heard.subarray(0, 400).equals(whole.subarray(0, 400)), 'and its first 50 ms');
  const entries = await hangUpAndTranscript(phone, sessionId);
  t.same(entries.map((e) => [e.role, e.text]), [['assistant', GREETING]], 'the whole greeting, and no turn for the pickup word');
  t.equal(providers.requests.filter((r) => r.path === '/v1/chat/completions').length, chats, 'nothing was answered');
});

t.test('outbound: a sentence in the first second of the greeting interrupts it', async (t) => {
  providers.script.transcripts = ['hello who is this i was not expecting a call'];
  providers.script.replies = ['This is the city clinic, sorry to surprise you.'];
  const { phone, sessionId } = await outboundCall();
  await greetingStarts(phone);
  phone.say(speech('Hello, who is this? I was not expecting a call.', 8000), 'sentence');
  await phone.waitFor((s) => s.clears() > 0, 5000, 'clear');
  const waited = phone.messages('clear')[0].atMs - phone.saidAt.get('sentence')!;
  t.ok(waited < 500, `cleared ${waited} ms in: the phone stops at the onset, before the words are judged`);
  await phone.waitFor((s) => s.marks().length > 0, 15_000, 'the answer');
  const entries = await hangUpAndTranscript(phone, sessionId);
  // Cut at the onset, the callee heard a few hundred ms of it: a short prefix, or not one whole word (no entry).
  const greeting = entries[0]?.role === 'assistant' && entries.length === 3 ? entries.shift()! : null;
  if (greeting) t.ok(GREETING.startsWith(greeting.text) && greeting.text.length < GREETING.length / 3, `the greeting was cut: "${greeting.text}"`);
  t.same(entries.map((e) => e.role), ['user', 'assistant'], 'the sentence, then the answer');
  t.equal(entries[0].text, 'hello who is this i was not expecting a call');
  t.equal(entries[1].text, 'This is the city clinic, sorry to surprise you.');
});

t.test('outbound: the same "hello?" later in the greeting interrupts it', async (t) => {
  const { phone, sessionId } = await twoSecondsIntoGreeting('hello', 'Yes, hello!');
  phone.say(speech('Hello?', 8000), 'late');
  await phone.waitFor((s) => s.clears() > 0, 5000, 'clear');
  t.ok(phone.messages('clear')[0].atMs - phone.saidAt.get('late')! < 500, 'cut at once: past the first second it is a barge-in');
  await phone.waitFor((s) => s.marks().length > 0, 15_000, 'the answer');
  const entries = await hangUpAndTranscript(phone, sessionId);
  t.same(entries.slice(1).map((e) => e.text), ['hello', 'Yes, hello!']);
});

t.test('outbound with interruptible_greeting false: the greeting plays to the end under a sentence', async (t) => {
  providers.script.transcripts = ['can you hear me'];
  providers.script.replies = ['Yes, I can.'];
  const { phone, sessionId } = await outboundCall({ interruptible_greeting: false });
  const startedAt = await greetingStarts(phone);
  await until(() => Date.now() >= startedAt + 2000, 5000, 'two seconds of greeting');
  phone.say(speech('Hello, can you hear me?', 8000));
  await phone.waitFor((s) => s.marks().length > 0, 15_000, 'the greeting played');
  t.equal(phone.clears(), 0, 'never cleared');
  const entries = await hangUpAndTranscript(phone, sessionId);
  t.equal(entries[0].text, GREETING, 'the whole greeting');
});

t.test('outbound: the stream opens in the middle of the callee\'s "hello", and talking over the greeting later still cuts it', async (t) => {
  // The callee began "hello" as they picked up, so the stream's first frame is mid-word. The
  // barge-in detector took that first frame as the line's level and the callee was masked for the
  // whole call: no clear, ever (native/src/core/bargein_tuning.h, kLevelFar).
  providers.script.transcripts = ['hello', 'sorry who is calling'];
  providers.script.replies = ['Hello!', 'This is the city clinic.'];
  const hello = speech('Hello there?', 8000);
  const { phone } = await outboundCall({}, hello.subarray(1600)); // from 200 ms into the word
  const startedAt = await greetingStarts(phone);
  await until(() => Date.now() >= startedAt + 2000, 5000, 'two seconds of greeting');
  const clearsBefore = phone.clears();
  phone.say(speech('Sorry, who is calling?', 8000), 'barge');
  await phone.waitFor((s) => s.clears() > clearsBefore, 5000, 'clear');
  const waited = phone.messages('clear')[clearsBefore].atMs - phone.saidAt.get('barge')!;
  t.ok(waited < 800, `clear ${waited} ms after the callee started talking over the greeting`);
  await phone.hangUp();
  await bed.media!.idle();
});
