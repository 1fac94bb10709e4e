import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { startProviderFakes } from '../fakes/wire/providers.js';
import { call, sessionRow, setupAgent, speech, startAgentMedia, verifiedAccount } from './fixtures.js';

// A whole cascade call with the other providers' adapters, through the real media socket and
// against their wire fakes: Deepgram live STT (/v1/listen, linear16, interim and final
// results, speech_final, UtteranceEnd), Anthropic messages over SSE, ElevenLabs stream-input
// TTS (a voice id, PCM at the call's rate). Greeting, a caller turn, the answer, a barge-in
// that keeps only the heard words in the model's history, hang-up and settlement.

const h = await startHarness();
const fake = await startProviderFakes({
  transcripts: ['what time is it', 'tell me your opening hours', 'stop please'],
  replies: [
    'It is noon. Anything else?',
    'Let me tell you about our opening hours in great detail. We open at nine in the morning on weekdays. On Saturdays we open at ten. On Sundays we stay closed all day long.',
    'Okay, I will stop.',
  ],
});
const media = await startAgentMedia(h);
t.teardown(async () => {
  await media.drain(0);
  await fake.close();
  await h.close();
});

const VOICE_ID = 'JBFqnCBsd6RMkjVDRZzb';

async function pipeline(projectId: string) {
  const dg = await verifiedAccount(h, projectId, 'deepgram', fake.baseUrl);
  const an = await verifiedAccount(h, projectId, 'anthropic', fake.baseUrl);
  const el = await verifiedAccount(h, projectId, 'elevenlabs', fake.baseUrl);
  return {
    stt: { account_id: dg, model: 'nova-3' },
    llm: { account_id: an, model: 'claude-haiku-4-5', max_tokens: 300 },
    tts: { account_id: el, model: 'eleven_flash_v2_5', voice: VOICE_ID },
  };
}

type Msg = Record<string, any>;

t.test('Deepgram STT + Anthropic LLM + ElevenLabs TTS: greeting, a turn, an answer, a barge-in, hang-up', async (t) => {
  const setup = await setupAgent(h, pipeline, { greeting: 'Hello {{name}}.' });
  const { caller, sessionId } = await call(h, media, setup);

  const greeting = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant');
  t.equal(greeting.frame.text, 'Hello Ann.');
  await caller.waitForCount('turn_complete', 1);
  t.ok(caller.audio.length > 10, 'greeting audio arrived');

  // ElevenLabs: one stream-input socket per sentence, the voice id in the path, PCM at 24 kHz.
  const tts = fake.sockets.filter((s) => s.path.startsWith('/v1/text-to-speech/'));
  t.ok(tts.length >= 1);
  t.equal(tts[0].path, `/v1/text-to-speech/${VOICE_ID}/stream-input`);
  t.equal(tts[0].query.get('model_id'), 'eleven_flash_v2_5');
  t.equal(tts[0].query.get('output_format'), 'pcm_24000');
  t.equal(tts[0].headers['xi-api-key'], 'sk-test-elevenlabs-0000');
  t.same((tts[0].messages as Msg[]).map((m) => m.text), [' ', 'Hello Ann.', '']);

  // Deepgram: one live socket for the call.
  const listen = fake.sockets.filter((s) => s.path === '/v1/listen');
  t.equal(listen.length, 1);
  t.equal(listen[0].headers.authorization, 'Token sk-test-deepgram-0000');
  t.match(Object.fromEntries(listen[0].query), { model: 'nova-3', encoding: 'linear16', sample_rate: '16000', channels: '1', interim_results: 'true', endpointing: '500', language: 'en-US' });

  caller.silence(300);
  caller.say(speech('What time is it?'));
  caller.silence(1500);
  const user = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'user', 15_000);
  t.equal(user.frame.text, 'what time is it');
  const answer = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant' && f.text !== 'Hello Ann.', 15_000);
  t.equal(answer.frame.text, 'It is noon. Anything else?');
  await caller.waitForCount('turn_complete', 2);
  t.ok(caller.audioSamplesAfter(user.at) > 24000 * 0.5, 'answer audio arrived after the user transcript');
  t.ok(listen[0].binary.length > 20, 'caller audio went to Deepgram as binary linear16 frames');

  // Anthropic: system prompt on top, the greeting after a stand-in user turn, the caller's words.
  const msgs = fake.requests.filter((r) => r.path === '/v1/messages');
  t.equal(msgs.length, 1);
  t.equal(msgs[0].headers['x-api-key'], 'sk-test-anthropic-0000');
  t.equal(msgs[0].headers['anthropic-version'], '2023-06-01');
  const body = JSON.parse(msgs[0].body.toString());
  t.equal(body.model, 'claude-haiku-4-5');
  t.equal(body.stream, true);
  t.equal(body.max_tokens, 300);
  t.equal(body.system, 'You are a helpful agent for Ann.');
  t.same(
    body.messages.map((m: Msg) => [m.role, m.content.map((c: Msg) => c.text).join(' ')]),
    [['user', '(The call has connected.)'], ['assistant', 'Hello Ann.'], ['user', 'what time is it']],
  );
  t.ok(body.tools.some((x: Msg) => x.name === 'end_call' && x.input_schema), 'tools in Anthropic’s shape');
  // Each sentence of the answer was its own ElevenLabs stream (the fixed phrases have theirs too).
  const spoken = fake.sockets.filter((s) => s.path.startsWith('/v1/text-to-speech/')).map((s) => (s.messages as Msg[])[1]?.text);
  t.ok(spoken.includes('It is noon.') && spoken.includes('Anything else?'), 'one stream per sentence');
  t.notOk(spoken.includes('It is noon. Anything else?'));

  // A long answer; the caller barges in about 1.5 s into it.
  caller.silence(600);
  caller.say(speech('Tell me your opening hours.'));
  caller.silence(600);
  const turnsBefore = caller.frames('turn_complete').length;
  const longStart = await waitForAnswerAudio(caller, 15_000);
  await new Promise((r) => setTimeout(r, Math.max(0, longStart + 1500 - performance.now())));
  caller.say(speech('Stop please, stop.'));
  caller.silence(1500);
  const interrupted = await caller.waitFor((f) => f.type === 'interrupted', 10_000);
  const full = 'Let me tell you about our opening hours in great detail. We open at nine in the morning on weekdays. On Saturdays we open at ten. On Sundays we stay closed all day long.';
  const heard = String(interrupted.frame.heard);
  t.ok(heard.length > 0 && full.startsWith(heard) && heard.length < full.length, `heard is a prefix: "${heard}"`);
  const stop = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'user' && f.text === 'stop please', 15_000);
  t.ok(stop.at > interrupted.at);
  await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant' && f.text === 'Okay, I will stop.', 15_000);
  t.equal(caller.frames('turn_complete').length, turnsBefore + 1, 'no turn_complete for the interrupted answer');
  // The model's history has only the heard words of the interrupted answer.
  const third = JSON.parse(fake.requests.filter((r) => r.path === '/v1/messages')[2].body.toString());
  const assistantTexts = third.messages.filter((m: Msg) => m.role === 'assistant').map((m: Msg) => m.content.map((c: Msg) => c.text).join(' '));
  t.equal(assistantTexts.at(-1), heard);

  caller.hangUp();
  t.equal((await caller.closed).code, 1000);
  await media.idle();
  // The Deepgram stream is closed with the call.
  const closed = await Promise.race([listen[0].closed, new Promise((r) => setTimeout(() => r(null), 3000))]);
  t.ok(closed, 'Deepgram socket closed');
  const row = await sessionRow(h, sessionId);
  t.equal(row.status, 'completed');
  t.equal(row.end_reason, 'caller_hangup');
});

/** When the agent's next loud audio began (after now). */
async function waitForAnswerAudio(caller: Awaited<ReturnType<typeof call>>['caller'], timeoutMs: number): Promise<number> {
  const from = performance.now();
  const end = from + timeoutMs;
  for (;;) {
    const a = caller.audio.find((x) => x.at > from + 300 && x.pcm.some((v) => Math.abs(v) > 2000));
    if (a) return a.at;
    if (performance.now() > end) throw new Error('no answer audio');
    await new Promise((r) => setTimeout(r, 10));
  }
}
