import { Histogram } from 'prom-client';
import { registry } from './registry.js';

/** The four waits a caller hears: STT's final after the caller stops, the LLM's first token, TTS's first audio, a realtime model's first audio. */
export type ProviderStage = 'stt_final' | 'llm_first_token' | 'tts_first_byte' | 'realtime_first_audio';

const providerLatency = new Histogram({
  name: 'voice_provider_latency_seconds',
  help: "Provider latency by stage (stt_final: caller stopped → final transcript; llm_first_token; tts_first_byte; realtime_first_audio: response asked or caller stopped → first audio) and provider",
  labelNames: ['stage', 'provider'],
  buckets: [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10],
  registers: [registry],
});

export function observeProviderLatency(stage: ProviderStage, provider: string, ms: number): void {
  providerLatency.observe({ stage, provider }, ms / 1000);
}
