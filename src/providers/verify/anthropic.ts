import { ANTHROPIC, ANTHROPIC_VERSION } from '../hosts.js';
import { isObject, probe, type VerifyResult, type VerifyTarget } from './http.js';

// Anthropic: GET /v1/models with x-api-key and anthropic-version answers
// {"data":[...],"has_more","first_id","last_id"}; errors are {"type":"error","error":{"type","message"}}.

export function verifyAnthropic(target: VerifyTarget): Promise<VerifyResult> {
  return probe(
    {
      host: ANTHROPIC,
      path: '/v1/models',
      headers: { 'anthropic-version': ANTHROPIC_VERSION },
      looksRight: (b) => isObject(b) && Array.isArray(b.data) && typeof b.has_more === 'boolean',
      expected: 'models list',
      errorCode: (b) => (isObject(b) && isObject(b.error) ? b.error.type : undefined),
    },
    target,
  );
}
