import { performance } from 'node:perf_hooks';
import type { AdapterFactory } from '../conversation/index.js';
import type { LlmAdapter, RealtimeAdapter, RealtimeSession, SttAdapter, SttSession, TtsAdapter } from '../providers/types.js';
import { observeProviderLatency, type ProviderStage } from '../metrics/providers.js';

// Provider latency for /metrics, measured around the adapters the conversation engine gets, so
// neither the engine nor the providers know about metrics. Each wrapper delegates every call.

/** Times `stage` from `start()` to the first `hit()` after it; a later start restarts it. */
function stopwatch(stage: ProviderStage, provider: string) {
  let since = -1;
  return {
    start: () => {
      since = performance.now();
    },
    hit: () => {
      if (since < 0) return;
      observeProviderLatency(stage, provider, performance.now() - since);
      since = -1;
    },
  };
}

/** Yields `source`'s items, calling `first` before the first one that `counts`. */
async function* timedItems<T>(source: AsyncIterable<T>, counts: (item: T) => boolean, first: () => void): AsyncIterable<T> {
  let seen = false;
  for await (const item of source) {
    if (!seen && counts(item)) {
      seen = true;
      first();
    }
    yield item;
  }
}

function timedLlm(a: LlmAdapter): LlmAdapter {
  return {
    provider: a.provider,
    model: a.model,
    stream: (request) => {
      const t = stopwatch('llm_first_token', a.provider);
      t.start();
      return timedItems(a.stream(request), (e) => e.type === 'text' || e.type === 'tool_call', t.hit);
    },
  };
}

function timedTts(a: TtsAdapter): TtsAdapter {
  return {
    provider: a.provider,
    outputSampleRateHz: (hz) => a.outputSampleRateHz(hz),
    synthesize: (request) => {
      const t = stopwatch('tts_first_byte', a.provider);
      t.start();
      return timedItems(a.synthesize(request), (pcm) => pcm.length > 0, t.hit);
    },
  };
}

/** STT: from commit() (the engine's VAD says the caller stopped) to the next final transcript. */
function timedStt(a: SttAdapter): SttAdapter {
  return {
    provider: a.provider,
    streaming: a.streaming,
    open: async (options) => {
      const s = await a.open(options);
      const t = stopwatch('stt_final', a.provider);
      const session: SttSession = {
        write: (pcm) => s.write(pcm),
        commit: () => {
          t.start();
          s.commit();
        },
        finish: () => s.finish(),
        close: () => s.close(),
        [Symbol.asyncIterator]: () => timedEach(s, (e) => e.type === 'final', t.hit)[Symbol.asyncIterator](),
      };
      return session;
    },
  };
}

/** Yields `source`'s items, calling `hit` before each that `counts`. */
async function* timedEach<T>(source: AsyncIterable<T>, counts: (item: T) => boolean, hit: () => void): AsyncIterable<T> {
  for await (const item of source) {
    if (counts(item)) hit();
    yield item;
  }
}

/** Realtime: from createResponse() or the server's speech_stopped to the next audio. */
function timedRealtime(a: RealtimeAdapter): RealtimeAdapter {
  return {
    provider: a.provider,
    model: a.model,
    connect: async (options) => {
      const s = await a.connect(options);
      const t = stopwatch('realtime_first_audio', a.provider);
      const session: RealtimeSession = {
        sampleRateHz: s.sampleRateHz,
        update: (c) => s.update(c),
        appendAudio: (pcm) => s.appendAudio(pcm),
        commitAudio: () => s.commitAudio(),
        clearAudio: () => s.clearAudio(),
        truncate: (itemId, contentIndex, audioEndMs) => s.truncate(itemId, contentIndex, audioEndMs),
        createResponse: (o) => {
          t.start();
          return s.createResponse(o);
        },
        cancel: () => s.cancel(),
        sendToolResult: (callId, output) => s.sendToolResult(callId, output),
        sendUserText: (text) => s.sendUserText(text),
        close: () => s.close(),
        [Symbol.asyncIterator]: () =>
          timedEach(
            s,
            (e) => {
              if (e.type === 'speech_stopped') t.start();
              return e.type === 'audio';
            },
            t.hit,
          )[Symbol.asyncIterator](),
      };
      return session;
    },
  };
}

/** The same adapters, timed for /metrics. */
export function timedAdapters(factory: AdapterFactory): AdapterFactory {
  return (stages, credentials) => {
    const a = factory(stages, credentials);
    return {
      ...(a.stt ? { stt: { ...a.stt, adapter: timedStt(a.stt.adapter) } } : {}),
      ...(a.llm ? { llm: { ...a.llm, adapter: timedLlm(a.llm.adapter) } } : {}),
      ...(a.tts ? { tts: { ...a.tts, adapter: timedTts(a.tts.adapter) } } : {}),
      ...(a.realtime ? { realtime: { ...a.realtime, adapter: timedRealtime(a.realtime.adapter) } } : {}),
    };
  };
}
