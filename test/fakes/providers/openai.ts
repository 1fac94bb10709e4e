import { randomBytes } from 'node:crypto';
import { sendJson, startFake, type FakeProvider } from './server.js';

// OpenAI's GET /v1/models: bearer auth; a list object, or {"error": {...}} on failure.

const MODELS = [
  { id: 'gpt-4o-mini', object: 'model', created: 1721172741, owned_by: 'system' },
  { id: 'gpt-4.1', object: 'model', created: 1744316542, owned_by: 'system' },
  { id: 'gpt-realtime', object: 'model', created: 1756271701, owned_by: 'system' },
];

const mask = (key: string) => `${key.slice(0, 3)}${'*'.repeat(Math.max(0, key.length - 7))}${key.slice(-4)}`;

export function startFakeOpenAI(validKey: string): Promise<FakeProvider> {
  return startFake((req, res) => {
    if (req.method !== 'GET' || req.path !== '/v1/models') {
      return sendJson(res, 404, { error: { message: `Invalid URL (${req.method} ${req.path})`, type: 'invalid_request_error', param: null, code: null } });
    }
    const auth = req.headers.authorization ?? '';
    const requestId = `req_${randomBytes(16).toString('hex')}`;
    if (!auth) {
      return sendJson(res, 401, {
        error: {
          message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      }, { 'x-request-id': requestId });
    }
    const key = auth.replace(/^Bearer /, '');
    if (key !== validKey) {
      return sendJson(res, 401, {
        error: {
          message: `Incorrect API key provided: ${mask(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      }, { 'x-request-id': requestId });
    }
    sendJson(res, 200, { object: 'list', data: MODELS }, { 'x-request-id': requestId });
  });
}
