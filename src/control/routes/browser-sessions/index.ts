import { z } from 'zod';
import { findPublishableKey } from '../../../db/repos/publishable-keys.js';
import { admitBrowserSession } from '../../../sessions/browser-admission.js';
import { errors } from '../../../shared/errors.js';
import { rateHeaders, takeRequest } from '../../auth/rate-limit.js';
import { defineRoute, type Router } from '../../route.js';
import { CreateVoiceSessionBody, CreateVoiceSessionResponse } from '../../../contract/voice-sessions.js';
import { parseInput } from '../../../contract/validation.js';
import { named } from '../../../contract/api-schemas.js';

// Contract §2: a public web page starts one voice call on one agent with a publishable key,
// from an origin on the key's list. Limited per key and per client address (`req.ip`: the real
// client behind the proxies TRUST_PROXY names), and by the key's own budget, connect window and
// maximum duration (contract §11, sessions/browser-admission.ts).
export const PER_KEY_PER_MINUTE = 60;
export const PER_ADDRESS_PER_MINUTE = 10;

const BrowserSessionBody = named(z.strictObject({
  agent_id: z.uuid(),
  variables: z.record(z.string(), z.string().max(10_000)).optional(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
}), 'CreateBrowserSessionRequest');
const Headers = z.object({ 'x-publishable-key': z.string().max(200).optional(), origin: z.string().max(300).optional() });

export function browserSessionRoutes(router: Router): void {
  const { ctx } = router;
  defineRoute(
    router,
    {
      method: 'POST',
      url: '/v2/browser/sessions',
      operationId: 'createBrowserSession',
      security: [{ publishableKey: [] }],
      errors: [401, 402, 403, 404, 409, 429],
      summary: 'Start a browser voice session with a publishable key (X-Publishable-Key, Origin)',
      tag: 'voice sessions',
      auth: 'none',
      headers: Headers,
      body: BrowserSessionBody,
      status: 201,
      response: CreateVoiceSessionResponse,
    },
    async ({ headers, body, req, reply }) => {
      const presented = headers['x-publishable-key'];
      if (!presented) throw errors.unauthenticated('missing publishable key');
      const key = await findPublishableKey(ctx, presented);
      if (!key) throw errors.unauthenticated('invalid publishable key');
      if (key.suspended) throw errors.projectUnavailable();

      const byAddress = await takeRequest(ctx, `ip:${req.ip}`, PER_ADDRESS_PER_MINUTE);
      const byKey = await takeRequest(ctx, `pk:${key.id}`, PER_KEY_PER_MINUTE);
      reply.headers(rateHeaders(byKey.remaining <= byAddress.remaining ? byKey : byAddress));
      const exceeded = [byKey, byAddress].filter((w) => w.exceeded);
      if (exceeded.length) throw errors.rateLimited(Math.max(...exceeded.map((w) => w.resetSeconds)));

      // The Origin must equal one listed origin exactly: scheme, host and port.
      if (!headers.origin || !key.origins.includes(headers.origin)) throw errors.forbidden('origin not allowed for this publishable key');
      if (key.agent_ids && !key.agent_ids.includes(body.agent_id)) throw errors.notFound('agent not found');

      const sessionBody = parseInput(CreateVoiceSessionBody, { agent_id: body.agent_id, variables: body.variables, metadata: body.metadata }, 'body');
      return admitBrowserSession(ctx, key, sessionBody);
    },
  );
}
