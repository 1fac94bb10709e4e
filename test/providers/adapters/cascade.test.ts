import t from 'tap';
import { createAdapters } from '../../../src/providers/registry.js';
import { SentenceSplitter } from '../../../src/providers/llm/sentences.js';
import type { StreamingTtsAdapter, SttEvent } from '../../../src/providers/types.js';
import { startProviderFakes, tone } from '../../fakes/wire/providers.js';
import { sentTexts } from '../../fakes/wire/elevenlabs.js';
import { signal } from './helpers.js';

// The adapters composed the way the engine will: caller audio → STT final → LLM tokens →
// sentences → TTS audio, through the registry, against the wire fakes (not the engine).

const fake = await startProviderFakes({ transcripts: ['Book a table for two.'], replies: ['Sure. For what time? I can also check 3.5 hour slots.'] });
t.teardown(() => fake.close());
const creds = { apiKey: 'k-cascade-1234', baseUrl: fake.baseUrl };

async function* frames(rateHz: number, speechMs: number, silenceMs: number) {
  const frame = (rateHz * 20) / 1000;
  const speech = tone(rateHz, speechMs);
  for (let i = 0; i < speech.length; i += frame) yield speech.subarray(i, i + frame);
  for (let ms = 0; ms < silenceMs; ms += 20) yield new Int16Array(frame);
}

t.test('Deepgram STT + Anthropic LLM + ElevenLabs TTS', async (t) => {
  const a = createAdapters(
    {
      stt: { provider: 'deepgram', model: 'nova-3', language: 'en-US', endpointing_ms: 200 },
      llm: { provider: 'anthropic', model: 'claude-haiku-4-5', max_tokens: 200 },
      tts: { provider: 'elevenlabs', model: 'eleven_flash_v2_5', voice: 'voice123' },
    },
    { stt: creds, llm: creds, tts: creds },
  );
  const stt = await a.stt!.adapter.open({ sampleRateHz: 16000, language: a.stt!.language, endpointingMs: a.stt!.endpointingMs, signal: signal() });
  const heard: SttEvent[] = [];
  const turnEnd = (async () => {
    for await (const e of stt) {
      heard.push(e);
      if (e.type === 'final' && e.speechFinal) return e.text;
    }
    return '';
  })();
  for await (const f of frames(16000, 400, 400)) stt.write(f);
  const said = await turnEnd;
  t.equal(said, 'Book a table for two.');
  t.match(heard[0], { type: 'interim' });
  stt.close();

  const tts = a.tts!.adapter as StreamingTtsAdapter;
  const out = await tts.open({ voice: a.tts!.voice, model: a.tts!.model, sampleRateHz: 16000, signal: signal() });
  const audio = (async () => {
    let samples = 0;
    for await (const c of out) samples += c.length;
    return samples;
  })();
  const splitter = new SentenceSplitter();
  const sentences: string[] = [];
  for await (const e of a.llm!.adapter.stream({ messages: [{ role: 'system', content: 'Be a host.' }, { role: 'user', content: said }], maxTokens: a.llm!.maxTokens, signal: signal() })) {
    if (e.type !== 'text') continue;
    for (const s of splitter.push(e.text)) {
      sentences.push(s);
      out.sendText(s + ' ');
      out.flush();
    }
  }
  const rest = splitter.flush();
  if (rest) {
    sentences.push(rest);
    out.sendText(rest + ' ');
  }
  out.end();
  t.same(sentences, ['Sure.', 'For what time?', 'I can also check 3.5 hour slots.']);
  t.ok((await audio) > 16000, 'about a second or more of audio');
  const sock = fake.sockets.filter((x) => x.path.startsWith('/v1/text-to-speech/')).at(-1)!;
  t.same(sentTexts(sock).filter((m) => m.text.trim()).map((m) => m.text), ['Sure. ', 'For what time? ', 'I can also check 3.5 hour slots. ']);
});

t.test('OpenAI STT (VAD-cut utterance) + OpenAI LLM + OpenAI TTS', async (t) => {
  fake.script.transcripts = ['What are your hours?'];
  const a = createAdapters(
    {
      stt: { provider: 'openai', model: 'gpt-4o-mini-transcribe' },
      llm: { provider: 'openai', model: 'gpt-4.1-mini' },
      tts: { provider: 'openai', model: 'gpt-4o-mini-tts', voice: 'alloy' },
    },
    { stt: creds, llm: creds, tts: creds },
  );
  const stt = await a.stt!.adapter.open({ sampleRateHz: 16000, signal: signal() });
  for await (const f of frames(16000, 400, 0)) stt.write(f);
  stt.commit(); // the engine's VAD said the caller stopped
  const it = stt[Symbol.asyncIterator]();
  const first = (await it.next()).value as SttEvent;
  t.same(first, { type: 'final', text: 'What are your hours?', speechFinal: true });
  let reply = '';
  for await (const e of a.llm!.adapter.stream({ messages: [{ role: 'user', content: 'What are your hours?' }], signal: signal() })) if (e.type === 'text') reply += e.text;
  t.equal(reply, 'You said: What are your hours?');
  let samples = 0;
  for await (const c of a.tts!.adapter.synthesize({ text: reply, voice: 'alloy', model: 'gpt-4o-mini-tts', sampleRateHz: 24000, signal: signal() })) samples += c.length;
  t.equal(samples, Math.round((24000 * reply.length * 40) / 1000));
  await stt.finish();
});
