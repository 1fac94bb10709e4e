import { OPENAI } from '../hosts.js';
import { isObject, probe, type VerifyResult, type VerifyTarget } from './http.js';

// OpenAI (and OpenAI-compatible servers): GET /v1/models with a bearer key answers
// {"object":"list","data":[...]}; errors are {"error":{"message","type","param","code"}}.
export function verifyOpenAI(target: VerifyTarget): Promise<VerifyResult> {
  return probe(
    {
      host: OPENAI,
      path: '/v1/models',
      looksRight: (b) => isObject(b) && b.object === 'list' && Array.isArray(b.data),
      expected: 'models list',
      errorCode: (b) => (isObject(b) && isObject(b.error) ? (b.error.code ?? b.error.type) : undefined),
    },
    target,
  );
}
