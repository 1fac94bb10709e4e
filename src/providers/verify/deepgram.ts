import { DEEPGRAM } from '../hosts.js';
import { isObject, probe, type VerifyResult, type VerifyTarget } from './http.js';

// Deepgram: GET /v1/projects with `Authorization: Token <key>` answers {"projects":[{project_id,name}]};
// errors are {"err_code","err_msg","request_id"} (or the newer {"category","message",...}).
export function verifyDeepgram(target: VerifyTarget): Promise<VerifyResult> {
  return probe(
    {
      host: DEEPGRAM,
      path: '/v1/projects',
      looksRight: (b) => isObject(b) && Array.isArray(b.projects),
      expected: 'projects list',
      errorCode: (b) => (isObject(b) ? (b.err_code ?? b.category) : undefined),
    },
    target,
  );
}
