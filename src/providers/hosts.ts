// The hosted providers' APIs: where each lives and how an account's key travels to it. The
// streaming adapters (through provider-call.ts) and the key check (verify/) both read these.

export interface ProviderHost {
  /** The provider's name in errors and status details ("OpenAI"). */
  name: string;
  /** Used when the account has no base_url. */
  defaultBaseUrl: string;
  /** The header that carries the account's API key. */
  keyHeader: (apiKey: string) => Record<string, string>;
}

export const ANTHROPIC_VERSION = '2023-06-01';

export const OPENAI: ProviderHost = { name: 'OpenAI', defaultBaseUrl: 'https://api.openai.com', keyHeader: (key) => ({ authorization: `Bearer ${key}` }) };
export const ANTHROPIC: ProviderHost = { name: 'Anthropic', defaultBaseUrl: 'https://api.anthropic.com', keyHeader: (key) => ({ 'x-api-key': key }) };
export const DEEPGRAM: ProviderHost = { name: 'Deepgram', defaultBaseUrl: 'https://api.deepgram.com', keyHeader: (key) => ({ authorization: `Token ${key}` }) };
export const ELEVENLABS: ProviderHost = { name: 'ElevenLabs', defaultBaseUrl: 'https://api.elevenlabs.io', keyHeader: (key) => ({ 'xi-api-key': key }) };
