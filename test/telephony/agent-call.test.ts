import t from 'tap';
import { createCarrierConnection, verifyCarrier } from '../../src/carriers/accounts.js';
import { createCarrierNumber } from '../../src/db/repos/carrier-numbers.js';
import { processDial } from '../../src/telephony/dial.js';
import { admitOutbound } from '../../src/telephony/outbound.js';
import { sendStatusCallback } from '../fakes/twilio/callbacks.js';
import { startProviderFakes } from '../fakes/wire/providers.js';
import { LONG_REPLY, openAiPipeline, setupAgent, speech } from '../conversation/fixtures.js';
import { openStream, sessionRow, startBed, until } from './helpers.js';

// A whole outbound phone call against the real conversation engine (OpenAI wire fakes for STT,
// LLM and TTS) over the Twilio bridge: the callee asks, the agent answers, the callee talks over
// the answer, and the phone is told to `clear` what it buffered; the next answer ends with a
// `turn_complete` mark. The caller's line streams μ-law frames in real time, as Twilio does.

const providers = await startProviderFakes({ transcripts: ['tell me your hours', 'stop please'], replies: [LONG_REPLY, 'Sure.'] });
const bed = await startBed({ media: { pipeline: 'agent' } });
const { h, fake } = bed;
t.teardown(async () => {
  await bed.close();
  await providers.close();
});

t.test('outbound call through the conversation engine: answer, barge-in → clear, next turn → mark', async (t) => {
  // Synthesized before the call: espeak-ng runs synchronously in this process, which also runs the
  // server and the phone line, and a cold cache's ~90 ms stalls mid-call moved the ask into the
  // stream's first frames. (That masked the callee for the whole call until the barge-in detector's
  // line levels learned to restart: docs/benchmarks-turns.md, round 8; greeting-barge-in tests it.)
  const ask = speech('Tell me your hours.', 8000);
  const barge = speech('Stop please, I have a question.', 8000);
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, providers.baseUrl));
  const account = fake.addAccount();
  const carrier = await createCarrierConnection(h.ctx, setup.projectId, { kind: 'twilio', label: 'line', credentials: { account_sid: account.sid, auth_token: account.token }, base_url: fake.baseUrl });
  t.equal((await verifyCarrier(h.ctx, setup.projectId, carrier.id)).status, 'verified');
  await createCarrierNumber(h.ctx, setup.projectId, carrier.id, { e164: '+14155550123', outboundEnabled: true, agentId: null });

  const admitted = await admitOutbound(h.ctx, setup.projectId, { agent_id: setup.agentId, from: '+14155550123', to: '+14155557777', variables: { name: 'Ann' } });
  const sessionId = admitted.session.id;
  const outcome = await processDial(h.ctx, sessionId);
  t.equal(outcome.kind, 'dialed');
  const call = fake.calls.find((c) => c.sid === (outcome as { callSid: string }).callSid)!;
  await sendStatusCallback(fake, call.sid, 'ringing');
  await sendStatusCallback(fake, call.sid, 'in-progress');

  const phone = await openStream(call, account);
  phone.startLine();
  await until(async () => (await sessionRow(h, sessionId)).media_connected_at !== null, 5000, 'stream connected');

  phone.say(ask, 'ask');
  // Wait for about two seconds of the answer (8 kHz μ-law: 160 bytes per 20 ms message).
  const askedAt = () => phone.saidAt.get('ask') ?? Infinity;
  await phone.waitFor((s) => s.messages('media').filter((m) => m.atMs > askedAt() + 1000).length >= 100, 20_000, 'the answer playing');
  phone.say(barge, 'barge');
  const clearsBefore = phone.clears();
  await phone.waitFor((s) => s.clears() > clearsBefore, 10_000, 'clear');
  const clear = phone.messages('clear')[clearsBefore];
  const onset = phone.saidAt.get('barge')!;
  t.ok(clear.atMs >= onset && clear.atMs - onset < 800, `clear ${clear.atMs - onset} ms after the callee started talking over the answer`);
  t.same(clear.json, { event: 'clear', streamSid: phone.streamSid });
  await new Promise((r) => setTimeout(r, 600));
  t.equal(phone.messages('media').filter((m) => m.atMs > clear.atMs + 150 && m.atMs < clear.atMs + 600).length, 0, 'the cut answer stops');

  // The next answer ("Sure.") plays and is followed by the turn_complete mark.
  await phone.waitFor((s) => s.messages('mark').some((m) => m.atMs > clear.atMs), 20_000, 'turn_complete mark');
  t.same(phone.messages('mark').filter((m) => m.atMs > clear.atMs).map((m) => m.json), [{ event: 'mark', streamSid: phone.streamSid, mark: { name: 'turn_complete' } }]);
  t.equal(phone.messages('mark').filter((m) => m.atMs < clear.atMs).length, 0, 'the cut answer was not marked complete');
  t.ok(phone.messages('media').some((m) => m.atMs > clear.atMs + 600), 'the next answer was heard');
  t.equal(phone.garbage.length, 0);
  t.notOk(phone.received.some((m) => !['media', 'mark', 'clear'].includes(m.event)), 'only media, mark and clear go to Twilio');

  await phone.hangUp();
  await bed.media!.idle();
  const row = await sessionRow(h, sessionId);
  t.match(row, { status: 'completed', end_reason: 'caller_hangup', direction: 'outbound' });
  t.ok(row.connected_seconds >= 3, `connected ${row.connected_seconds} s`);
});
