import { randomUUID } from 'node:crypto';
import { Agent, request, type Dispatcher } from 'undici';
import type { AppContext } from '../shared/app-context.js';
import { assertDeliverableUrl, BlockedDestinationError, createSafeLookup, type Resolver } from '../shared/net/address-policy.js';
import { publicOnlyDispatcher } from '../shared/net/outbound-http.js';
import { deliveryHeaders, signingKey } from '../webhooks/signing.js';
import { findAgentSealedSecret } from '../db/repos/agents.js';

// The tool webhook (contract §4, §7): when the model calls one of the agent's tools, POST a
// Standard-Webhooks-signed `tool.call` event to the agent's tool_webhook_url, signed with the
// agent's webhook secret, and read `{result}` back. One attempt, 5 s in all, no redirects,
// public addresses only (unless ALLOW_PRIVATE_URLS), at most 64 KiB of answer. Never throws:
// every failure is `{ok: false, error}` with a short reason the engine can hand the model.

export const TOOL_WEBHOOK_TIMEOUT_MS = 5_000;
export const TOOL_RESPONSE_MAX_BYTES = 64 * 1024;

export interface ToolWebhookRequest {
  projectId: string;
  agentId: string;
  sessionId: string;
  url: string;
  tool: string;
  arguments: unknown;
  signal?: AbortSignal;
}

export type ToolWebhookResult = { ok: true; result: unknown } | { ok: false; error: string };

export interface ToolWebhookOptions {
  /** Whole-call deadline (default 5 s). */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Name resolution (tests); every answer is still checked against the address policy. */
  resolve?: Resolver;
}

let privateAgent: Agent | undefined;
const resolverAgents = new WeakMap<Resolver, Agent>();

function dispatcherFor(allowPrivate: boolean, resolve: Resolver | undefined): Dispatcher {
  if (allowPrivate) return (privateAgent ??= new Agent({ keepAliveTimeout: 10_000 }));
  if (!resolve) return publicOnlyDispatcher();
  let agent = resolverAgents.get(resolve);
  if (!agent) resolverAgents.set(resolve, (agent = new Agent({ connect: { lookup: createSafeLookup(resolve) } })));
  return agent;
}

function blockedIn(err: unknown): BlockedDestinationError | true | null {
  for (let e = err as { code?: string; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e instanceof BlockedDestinationError) return e;
    if (e.code === 'VC_ERR_DESTINATION_BLOCKED') return true;
  }
  return null;
}

function connectionError(err: unknown): string {
  const blocked = blockedIn(err);
  if (blocked) return `blocked destination${blocked === true ? '' : ` (${blocked.message})`}`;
  const e = err as { code?: string; cause?: { code?: string } };
  const code = e?.code ?? e?.cause?.code;
  return code && /^[A-Z0-9_]{1,40}$/.test(code) ? `connection failed (${code})` : 'connection failed';
}

/** The body as text, or null when it is larger than `maxBytes` (the rest is not read). */
async function readCapped(body: AsyncIterable<Buffer>, maxBytes: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function checkUrl(raw: string, allowPrivate: boolean): string | null {
  try {
    if (!allowPrivate) assertDeliverableUrl(raw);
    else if (!/^https?:$/.test(new URL(raw).protocol)) return 'blocked destination (only http(s) URLs are called)';
    return null;
  } catch (err) {
    return err instanceof BlockedDestinationError ? `blocked destination (${err.message})` : 'invalid URL';
  }
}

async function signingSecret(ctx: AppContext, projectId: string, agentId: string): Promise<string | { error: string }> {
  const sealed = await findAgentSealedSecret(ctx.sql, projectId, agentId);
  if (sealed === null) return { error: 'agent not found' };
  try {
    return ctx.keyring.decrypt(sealed, agentId);
  } catch {
    return { error: 'signing secret unavailable' };
  }
}

async function call(ctx: AppContext, req: ToolWebhookRequest, opts: ToolWebhookOptions): Promise<ToolWebhookResult> {
  const timeoutMs = opts.timeoutMs ?? TOOL_WEBHOOK_TIMEOUT_MS;
  const maxBytes = opts.maxResponseBytes ?? TOOL_RESPONSE_MAX_BYTES;
  const allowPrivate = ctx.config.ALLOW_PRIVATE_URLS;
  const urlProblem = checkUrl(req.url, allowPrivate);
  if (urlProblem) return { ok: false, error: urlProblem };
  if (req.signal?.aborted) return { ok: false, error: 'cancelled' };

  const secret = await signingSecret(ctx, req.projectId, req.agentId);
  if (typeof secret !== 'string') return { ok: false, error: secret.error };
  const now = ctx.clock.now();
  const body = JSON.stringify({
    type: 'tool.call',
    timestamp: now.toISOString(),
    data: { session_id: req.sessionId, tool: req.tool, arguments: req.arguments ?? null },
  });
  const headers = deliveryHeaders(signingKey(secret), randomUUID(), Math.floor(now.getTime() / 1000), body);

  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = req.signal ? AbortSignal.any([deadline, req.signal]) : deadline;
  const aborted = () => (deadline.aborted ? `timeout after ${timeoutMs} ms` : 'cancelled');
  let res: Dispatcher.ResponseData;
  try {
    res = await request(req.url, {
      dispatcher: dispatcherFor(allowPrivate, opts.resolve),
      method: 'POST',
      headers,
      body,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  } catch (err) {
    return { ok: false, error: signal.aborted ? aborted() : connectionError(err) };
  }
  // Abandoning the body (too large, a failure) destroys it; that must not become an unhandled error.
  res.body.on('error', () => {});
  try {
    const status = res.statusCode;
    if (status < 200 || status >= 300) {
      await res.body.dump({ limit: maxBytes }).catch(() => {});
      return { ok: false, error: status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}` };
    }
    const text = await readCapped(res.body, maxBytes);
    if (text === null) {
      res.body.destroy();
      return { ok: false, error: `response larger than ${maxBytes} bytes` };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { ok: false, error: 'invalid JSON' };
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || !('result' in parsed)) {
      return { ok: false, error: 'invalid response (expected {"result": ...})' };
    }
    return { ok: true, result: (parsed).result };
  } catch (err) {
    res.body.destroy();
    return { ok: false, error: signal.aborted ? aborted() : connectionError(err) };
  }
}

/**
 * Calls the agent's tool webhook for one tool call. The optional third argument exists for
 * tests (a shorter deadline, a resolver); the engine passes only `ctx` and `req`.
 */
export async function callToolWebhook(ctx: AppContext, req: ToolWebhookRequest, opts: ToolWebhookOptions = {}): Promise<ToolWebhookResult> {
  let outcome: ToolWebhookResult;
  try {
    outcome = await call(ctx, req, opts);
  } catch (err) {
    // Unexpected (the database, the keyring): still an answer the engine can give the model.
    ctx.log.warn({ session_id: req.sessionId, tool: req.tool, err: { message: (err as Error).message } }, 'tool webhook call failed unexpectedly');
    return { ok: false, error: 'tool call failed' };
  }
  if (!outcome.ok) ctx.log.info({ session_id: req.sessionId, tool: req.tool, error: outcome.error }, 'tool webhook call failed');
  return outcome;
}
