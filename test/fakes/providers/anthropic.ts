import { randomBytes } from 'node:crypto';
import { sendJson, startFake, type FakeProvider } from './server.js';

// Anthropic's GET /v1/models: x-api-key and anthropic-version headers; a page of models, or
// {"type": "error", "error": {type, message}, "request_id"} on failure.

const MODELS = [
  { type: 'model', id: 'claude-sonnet-4-6', display_name: 'Claude Sonnet 4.6', created_at: '2026-02-17T00:00:00Z' },
  { type: 'model', id: 'claude-haiku-4-5-20251001', display_name: 'Claude Haiku 4.5', created_at: '2025-10-15T00:00:00Z' },
];

export function startFakeAnthropic(validKey: string): Promise<FakeProvider> {
  return startFake((req, res) => {
    const requestId = `req_011${randomBytes(12).toString('hex')}`;
    const error = (status: number, type: string, message: string) =>
      sendJson(res, status, { type: 'error', error: { type, message }, request_id: requestId }, { 'request-id': requestId });
    if (req.method !== 'GET' || req.path !== '/v1/models') return error(404, 'not_found_error', 'Not Found');
    if (!req.headers['anthropic-version']) return error(400, 'invalid_request_error', 'anthropic-version: header is required');
    const key = req.headers['x-api-key'];
    if (!key) return error(401, 'authentication_error', 'x-api-key header is required');
    if (key !== validKey) return error(401, 'authentication_error', 'invalid x-api-key');
    sendJson(res, 200, { data: MODELS, has_more: false, first_id: MODELS[0].id, last_id: MODELS[MODELS.length - 1].id }, { 'request-id': requestId });
  });
}
