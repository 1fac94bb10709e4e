// The providers a pipeline stage can use and the model ids each offers (contract §3).
// Model ids are the providers' own; the `local` provider runs on this machine.

export const PROVIDERS = ['openai', 'deepgram', 'elevenlabs', 'anthropic', 'local'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const STAGES = ['stt', 'llm', 'tts', 'realtime'] as const;
export type Stage = (typeof STAGES)[number];

export type StageModels = Partial<Record<Stage, readonly string[]>>;

export interface CatalogueEntry {
  provider: Provider;
  stages: StageModels;
}

export const CATALOGUE: readonly CatalogueEntry[] = [
  {
    provider: 'openai',
    stages: {
      stt: ['gpt-4o-transcribe', 'gpt-4o-mini-transcribe', 'whisper-1'],
      llm: ['gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano', 'gpt-4o', 'gpt-4o-mini', 'gpt-5', 'gpt-5-mini'],
      tts: ['gpt-4o-mini-tts', 'tts-1', 'tts-1-hd'],
      realtime: ['gpt-realtime', 'gpt-realtime-mini', 'gpt-4o-realtime-preview', 'gpt-4o-mini-realtime-preview'],
    },
  },
  {
    provider: 'deepgram',
    stages: {
      stt: ['nova-3', 'nova-3-general', 'nova-2', 'nova-2-phonecall'],
      // Aura voices are chosen with the stage's `voice` (e.g. `thalia-en` → model `aura-2-thalia-en`).
      tts: ['aura-2', 'aura'],
    },
  },
  {
    provider: 'elevenlabs',
    stages: { tts: ['eleven_flash_v2_5', 'eleven_turbo_v2_5', 'eleven_multilingual_v2', 'eleven_v3'] },
  },
  {
    provider: 'anthropic',
    stages: { llm: ['claude-sonnet-4-6', 'claude-opus-4-6', 'claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-1'] },
  },
  {
    provider: 'local',
    stages: { stt: ['pocketsphinx-en-us'], llm: ['echo'], tts: ['espeak-ng'] },
  },
];

const BY_PROVIDER = new Map(CATALOGUE.map((e) => [e.provider, e]));

export function catalogueEntry(provider: string): CatalogueEntry | undefined {
  return BY_PROVIDER.get(provider as Provider);
}

export function offersStage(provider: string, stage: Stage): boolean {
  return Boolean(catalogueEntry(provider)?.stages[stage]);
}

export function offersModel(provider: string, stage: Stage, model: string): boolean {
  return catalogueEntry(provider)?.stages[stage]?.includes(model) ?? false;
}

/** Providers that run here and need no API key. */
export function needsCredentials(provider: Provider): boolean {
  return provider !== 'local';
}
