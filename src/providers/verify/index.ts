import type { Provider } from '../../contract/catalogue.js';
import { verifyAnthropic } from './anthropic.js';
import { verifyDeepgram } from './deepgram.js';
import { verifyElevenLabs } from './elevenlabs.js';
import type { VerifyResult, VerifyTarget } from './http.js';
import { verifyLocal } from './local.js';
import { verifyOpenAI } from './openai.js';

export type { VerifyResult, VerifyTarget } from './http.js';

/** One live check of an account's credentials against its provider. */
export function verifyProvider(provider: Provider, target: VerifyTarget): Promise<VerifyResult> {
  switch (provider) {
    case 'openai':
      return verifyOpenAI(target);
    case 'anthropic':
      return verifyAnthropic(target);
    case 'deepgram':
      return verifyDeepgram(target);
    case 'elevenlabs':
      return verifyElevenLabs(target);
    case 'local':
      return verifyLocal();
  }
}
