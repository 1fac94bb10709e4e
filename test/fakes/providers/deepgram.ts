import { randomUUID } from 'node:crypto';
import { sendJson, startFake, type FakeProvider } from './server.js';

// Deepgram's GET /v1/projects: `Authorization: Token <key>`; {"projects": [...]}, or
// {"err_code", "err_msg", "request_id"} on failure.

export function startFakeDeepgram(validKey: string): Promise<FakeProvider> {
  return startFake((req, res) => {
    const requestId = randomUUID();
    if (req.method !== 'GET' || req.path !== '/v1/projects') {
      return sendJson(res, 404, { err_code: 'NOT_FOUND', err_msg: 'Not Found', request_id: requestId });
    }
    const auth = req.headers.authorization ?? '';
    if (auth !== `Token ${validKey}`) {
      return sendJson(res, 401, { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: requestId });
    }
    sendJson(res, 200, { projects: [{ project_id: '3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b', name: 'voice agents' }] });
  });
}
