import t from 'tap';
import { getTranscript } from '../../src/db/repos/session-transcripts.js';
import type { FakeMediaStream } from '../fakes/twilio/media-client.js';
import { startProviderFakes } from '../fakes/wire/providers.js';
import type { ReceivedSocket } from '../fakes/wire/server.js';
import { setupAgent, speech } from '../conversation/fixtures.js';
import { realtimePipeline, sent, words } from '../conversation/realtime-support.js';
import { greetingHeard } from './greeting-heard.js';
import { answeredOutbound } from './answered-outbound.js';
import { sessionRow, startBed, until } from './helpers.js';

// The greeting of an outbound phone call on the realtime engine (OpenAI Realtime wire fake,
// server VAD by energy) through the Twilio bridge, as test/telephony/greeting-barge-in.test.ts
// for the cascade: a short pickup word ("hello?") in its first second stops the phone at once
// (`clear`), the greeting resumes and is heard whole, and the provider never hears the word (no
// caller turn, no answer, nothing truncated); a sentence there interrupts the greeting and is
// answered.

const GREETING = 'Hello Ann, this is the city clinic calling about your appointment tomorrow morning. We would like to confirm the time with you.';
// About six seconds of greeting, a word every three 100 ms chunks (the fake sends the i-th word
// with the i-th chunk), generated faster than real time as the service does.
const spread = words(GREETING).flatMap((w) => [w, '', '']);
const greetingResponse = { words: spread, chunks: spread.length, samplesPerChunk: 2400 };
const ANSWER = 'This is the city clinic, sorry to surprise you.';

const responses: string[] = [];
const providers = await startProviderFakes({
  realtime: { vad: 'energy', tone: true, delayMs: 5, onResponse: (r) => responses.push(r.words.join('')) },
});
const bed = await startBed({ media: { pipeline: 'agent' } });
const { h, fake } = bed;
t.teardown(async () => {
  await bed.close();
  await providers.close();
});

/** An outbound realtime call to a callee on the fake phone line, the agent greeting with GREETING. */
async function outboundCall(): Promise<{ phone: FakeMediaStream; sessionId: string; sock: ReceivedSocket }> {
  const setup = await setupAgent(h, realtimePipeline(h, providers.baseUrl), { pipeline_mode: 'realtime', greeting: 'Hello {{name}}.', store_transcript: true });
  const before = providers.sockets.length;
  const { phone, sessionId } = await answeredOutbound(bed, setup);
  let sock: ReceivedSocket | undefined;
  await until(() => Boolean((sock = providers.sockets.slice(before).find((s) => s.path === '/v1/realtime'))), 10_000, 'the realtime socket');
  return { phone, sessionId, sock: sock! };
}

/** μ-law silence is 0xff (or 0x7f): a media message carrying any other byte has the agent's voice. */
const voiced = (m: FakeMediaStream['received'][number]) =>
  Buffer.from(String((m.json.media as { payload?: unknown }).payload ?? ''), 'base64').some((b) => b !== 0xff && b !== 0x7f);

/** Waits for the greeting's first voiced frame at the phone. */
async function greetingStarts(phone: FakeMediaStream): Promise<void> {
  await phone.waitFor((s) => s.messages('media').some(voiced), 10_000, 'the greeting');
}

/** The loudest mean magnitude of the caller audio the provider was sent (its VAD calls above 500 speech). */
function loudestAppend(sock: ReceivedSocket): number {
  let loudest = 0;
  for (const m of sent(sock, 'input_audio_buffer.append')) {
    const buf = Buffer.from(String(m.audio), 'base64');
    let sum = 0;
    for (let i = 0; i + 1 < buf.length; i += 2) sum += Math.abs(buf.readInt16LE(i));
    loudest = Math.max(loudest, sum / Math.max(1, buf.length >> 1));
  }
  return loudest;
}

async function hangUpAndTranscript(phone: FakeMediaStream, sessionId: string) {
  await phone.hangUp();
  await bed.media!.idle();
  await until(async () => (await sessionRow(h, sessionId)).status === 'completed', 5000, 'settled');
  return getTranscript(h.ctx.sql, sessionId);
}

t.test('outbound realtime: "hello?" in the first second of the greeting stops the phone at once, the greeting resumes whole, the provider never hears the word', async (t) => {
  // What the whole greeting sounds like on this line, nobody talking over it.
  providers.script.realtime!.responses = [greetingResponse];
  const quiet = await outboundCall();
  await quiet.phone.waitFor((s) => s.marks().length > 0, 15_000, 'the greeting played');
  const whole = greetingHeard(quiet.phone);
  await hangUpAndTranscript(quiet.phone, quiet.sessionId);

  providers.script.realtime!.responses = [greetingResponse, { words: ['Yes,', ' hello!'], chunks: 6, samplesPerChunk: 2400 }];
  const before = responses.length;
  const { phone, sessionId, sock } = await outboundCall();
  await greetingStarts(phone);
  phone.say(speech('Hello?', 8000), 'pickup');
  await phone.waitFor((s) => s.clears() > 0, 5000, 'clear');
  const cleared = phone.messages('clear')[0].atMs - phone.saidAt.get('pickup')!;
  t.ok(cleared < 500, `the phone stopped ${cleared} ms after the callee started`);
  // The word was only a pickup: the greeting resumes and plays to the end (its mark comes back).
  await phone.waitFor((s) => s.marks().length > 0, 15_000, 'the greeting played');
  t.equal(phone.clears(), 1, 'one clear, at the pickup word');
  const heard = greetingHeard(phone);
  t.ok(Math.abs(heard.length - whole.length) <= 8 * 60, `the callee heard ${heard.length / 8} ms of the ${whole.length / 8} ms greeting`);
  t.ok(heard.subarray(-8000).equals(whole.subarray(-8000)), 'its last second as it should be');
  t.ok(heard.subarray(0, 400).equals(whole.subarray(0, 400)), 'and its first 50 ms');
  // A moment after the greeting, for a turn the provider might have opened on the word.
  await new Promise((r) => setTimeout(r, 1000));
  const entries = await hangUpAndTranscript(phone, sessionId);
  t.same(entries.map((e) => [e.role, e.text]), [['assistant', GREETING]], 'the whole greeting, and no turn for the pickup word');
  t.same(responses.slice(before), [GREETING], 'the provider answered nothing: only the greeting was spoken');
  t.ok(loudestAppend(sock) < 500, `the provider was sent no speech (loudest mean magnitude ${Math.round(loudestAppend(sock))})`);
  t.equal(sent(sock, 'response.cancel').length, 0, 'the greeting was not cancelled');
  t.equal(sent(sock, 'conversation.item.truncate').length, 0, 'nor truncated');
});

t.test('outbound realtime: a sentence in the first second of the greeting interrupts it and is answered', async (t) => {
  providers.script.realtime!.responses = [greetingResponse, { words: words(ANSWER), chunks: 12, samplesPerChunk: 2400 }];
  providers.script.realtime!.transcripts = ['hello who is this i was not expecting a call'];
  const { phone, sessionId, sock } = await outboundCall();
  await greetingStarts(phone);
  phone.say(speech('Hello, who is this? I was not expecting a call.', 8000), 'sentence');
  await phone.waitFor((s) => s.clears() > 0, 5000, 'clear');
  const waited = phone.messages('clear')[0].atMs - phone.saidAt.get('sentence')!;
  t.ok(waited < 500, `cleared ${waited} ms in: the phone stops at the onset, before the speech is judged`);
  await phone.waitFor((s) => s.marks().length > 0, 15_000, 'the answer');
  const truncate = sent(sock, 'conversation.item.truncate');
  t.equal(truncate.length, 1, 'the greeting item is truncated at what was heard');
  t.ok(loudestAppend(sock) >= 500, 'the provider was sent the sentence (from the preroll kept while it was judged)');
  const entries = await hangUpAndTranscript(phone, sessionId);
  // Cut at the onset, the callee heard a second or less of it: a short prefix, or not one whole word (no entry).
  const greeting = entries[0]?.role === 'assistant' && entries.length === 3 ? entries.shift()! : null;
  if (greeting) t.ok(GREETING.startsWith(greeting.text) && greeting.text.length < GREETING.length / 3, `the greeting was cut: "${greeting.text}"`);
  t.same(entries.map((e) => [e.role, e.text]), [['user', 'hello who is this i was not expecting a call'], ['assistant', ANSWER]], 'the sentence, then the answer');
});
