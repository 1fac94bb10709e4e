import t from 'tap';
import { startMetricsServer } from '../../src/metrics/server.js';
import { LONG_REPLY, call, isUser, openAiPipeline, setupAgent, speech, startCallTests } from '../conversation/fixtures.js';
import { startProviderFakes } from '../fakes/wire/providers.js';
import { realtimePipeline } from '../conversation/realtime-support.js';
import { sample, scrape } from './scrape.js';

// An agent call through the real socket against the local provider wire fakes: provider
// latency per stage and barge-ins show in /metrics.

const { h, fake, media } = await startCallTests(t);
const metrics = await startMetricsServer(0, '127.0.0.1');
t.teardown(metrics.close);

const latencyCount = (text: string, stage: string) => sample(text, 'voice_provider_latency_seconds_count', { stage, provider: 'openai' });

t.test('provider latency by stage and a barge-in are counted as the call runs', async (t) => {
  fake.script.transcripts = ['tell me your hours', 'stop please'];
  fake.script.replies = [LONG_REPLY, 'Sure.'];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl));
  const before = await scrape(metrics.port);
  const { caller } = await call(h, media, setup);
  caller.silence(200);
  caller.say(speech('Tell me your hours.'));
  caller.silence(800);
  const asked = await caller.waitFor(isUser, 15_000);
  const until = performance.now() + 20_000;
  while (caller.audioSamplesAfter(asked.at) < 24000 * 2 && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
  const answering = await scrape(metrics.port);
  for (const stage of ['stt_final', 'llm_first_token', 'tts_first_byte']) {
    t.ok(latencyCount(answering, stage) > latencyCount(before, stage), `${stage} observed`);
  }
  t.equal(sample(answering, 'voice_provider_latency_seconds_count', { stage: 'realtime_first_audio' }), sample(before, 'voice_provider_latency_seconds_count', { stage: 'realtime_first_audio' }), 'no realtime stage in a cascade call');
  t.equal(sample(answering, 'voice_media_barge_ins_total', { direction: 'web' }), sample(before, 'voice_media_barge_ins_total', { direction: 'web' }), 'no barge-in yet');

  caller.say(speech('Stop please, I have a question.'));
  caller.silence(1500);
  await caller.waitFor((f) => f.type === 'interrupted', 10_000);
  const barged = await scrape(metrics.port);
  t.equal(sample(barged, 'voice_media_barge_ins_total', { direction: 'web' }) - sample(before, 'voice_media_barge_ins_total', { direction: 'web' }), 1, 'one barge-in');
  caller.hangUp();
  await media.idle();
});

t.test('a realtime call times its first audio', async (t) => {
  const rt = await startProviderFakes({ realtime: { vad: 'energy', tone: true, delayMs: 5, responses: [{ words: ['Hello', ' Ann.'], chunks: 10, samplesPerChunk: 2400 }] } });
  t.teardown(() => rt.close());
  const setup = await setupAgent(h, realtimePipeline(h, rt.baseUrl), { pipeline_mode: 'realtime', greeting: 'Hello {{name}}.' });
  const before = await scrape(metrics.port);
  const { caller } = await call(h, media, setup);
  await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant', 10_000);
  const after = await scrape(metrics.port);
  t.equal(latencyCount(after, 'realtime_first_audio') - latencyCount(before, 'realtime_first_audio'), 1, 'the greeting response timed to its first audio');
  caller.hangUp();
  await media.idle();
});
