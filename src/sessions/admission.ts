import { randomUUID } from 'node:crypto';
import type { AppContext } from '../shared/app-context.js';
import type { CreateVoiceSessionBody } from '../contract/voice-sessions.js';
import type { AgentVariable } from '../contract/agents.js';
import { loadAgentForSession, type SessionAgent } from '../db/repos/agents.js';
import { getProjectCallLimits } from '../db/repos/projects.js';
import type { ProviderAccountInfo } from '../db/repos/provider-accounts.js';
import { insertSession, toSessionInfo, type SessionInfo, type SessionRow } from '../db/repos/voice-sessions.js';
import type { Tx } from '../shared/sql.js';
import { holdIfCovered, readWallet, recordHold } from '../db/repos/wallet.js';
import { randomToken, sha256Hex } from '../shared/crypto/tokens.js';
import { errors, sessionErrors, type FieldError } from '../shared/errors.js';
import { isDraining } from './draining.js';
import { holdFor, RATE_NANO_USD_PER_MIN, RATE_VERSION } from '../contract/money.js';
import { CREATED_SLOT_MARGIN_MS, releaseKeySlot, releaseSlot, takeSlot, type KeyBudget } from './slots.js';
import { keySlotLeaseUntil } from './slot-layout.js';
import { countLiveKeySessions, setSessionPublishableKey } from '../db/repos/publishable-keys.js';
import { roomForOneMore } from './live-limit.js';
import { pickMediaNode, releaseMediaNode, type MediaTarget } from './media-nodes.js';

export const WS_URL_TTL_SECONDS = 60;
export const MAX_DURATION_CAP_SECONDS = 14_400;
export const DEFAULT_MAX_DURATION_SECONDS = 600;

export interface AdmittedSession {
  session: SessionInfo;
  ws_url: string;
  expires_in_seconds: number;
}

/** Contract §5: the smallest of request, agent and the global cap; 600 when neither sets one. */
export function effectiveMaxDuration(requested: number | null | undefined, agent: number | null): number {
  const set = [requested, agent].filter((v): v is number => typeof v === 'number');
  if (set.length === 0) return DEFAULT_MAX_DURATION_SECONDS;
  return Math.min(...set, MAX_DURATION_CAP_SECONDS);
}

/** Undeclared or missing required variables, each named at `["body","variables","<name>"]`. */
export function checkVariables(declared: AgentVariable[], sent: Record<string, string>): FieldError[] {
  const names = new Set(declared.map((v) => v.name));
  const out: FieldError[] = [];
  for (const name of Object.keys(sent)) {
    if (!names.has(name)) out.push({ loc: ['body', 'variables', name], msg: 'variable is not declared by the agent', type: 'extra_forbidden' });
  }
  for (const v of declared) {
    if (v.required && !(v.name in sent)) out.push({ loc: ['body', 'variables', v.name], msg: 'field required', type: 'missing' });
  }
  return out;
}

/** True when every stage names a verified account among `accounts` (the project's live ones). */
export function stagesVerified(pipeline: Record<string, { account_id: string }>, accounts: Map<string, Pick<ProviderAccountInfo, 'status'>>): boolean {
  const stages = Object.values(pipeline ?? {});
  if (stages.length === 0) return false;
  return stages.every((s) => accounts.get(s?.account_id)?.status === 'verified');
}

export function stageAccountIds(config: Record<string, { account_id?: unknown }>): string[] {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  return Object.values(config ?? {})
    .map((s) => s?.account_id)
    .filter((id): id is string => typeof id === 'string' && uuid.test(id));
}

/** What a new session is made of, whatever the door it came through (web, outbound, inbound). */
export interface CallAdmission {
  direction: 'web' | 'outbound' | 'inbound';
  agent_id: string;
  max_duration_seconds?: number | null;
  metadata?: Record<string, unknown> | null;
  record?: boolean | null;
  store_transcript?: boolean | null;
  variables: Record<string, string>;
  sample_rate_in: number;
  sample_rate_out: number;
  encoding: 'pcm16' | 'opus';
  /** How long the single-use token (and the created session's slot) lives. */
  tokenTtlSeconds: number;
  /** Checks of the caller's own records, after the agent's and before the providers' (outbound `from`, carrier). */
  check?: (agent: SessionAgent['agent']) => Promise<void>;
  /** First statement inside the admission transaction, before the wallet lock (idempotency). */
  begin?: (tx: Tx) => Promise<void>;
  /**
   * A browser session's publishable key: the session also counts against the key's own budget
   * (contract §11), in Redis and, under the wallet lock, in Postgres, like the project's limit.
   */
  publishableKey?: { id: string; max_concurrent_sessions: number };
  /** Last statement inside the admission transaction: more columns for the new row. */
  finish?: (tx: Tx, row: SessionRow) => Promise<SessionRow>;
}

export interface AdmittedCall {
  row: SessionRow;
  /** The single-use media token in clear (only its hash is stored). */
  token: string;
  expiresAt: Date;
  /** The media node picked for the call: its URL prefixes the ws_url or stream URL. */
  media: MediaTarget;
}

/** Retry-After of a 429 from the live-session count in Postgres (calls end, created sessions expire). */
export const LIVE_LIMIT_RETRY_AFTER_SECONDS = 5;

/**
 * Admission shared by every door. Checks run in contract §5 order (the body was validated by
 * the route). The concurrency slot is taken in Redis (bounded, see slots.ts) BEFORE the wallet
 * transaction and given back if that transaction fails: nothing waits on Redis while it holds
 * the wallet row lock. The transaction then places the hold under the wallet lock (concurrent
 * admissions of a project never overdraw) and checks the project's live sessions in Postgres
 * under the same lock (live-limit.ts), so the limit holds whatever Redis lost or missed.
 */
export async function admitCall(ctx: AppContext, projectId: string, req: CallAdmission): Promise<AdmittedCall> {
  if (isDraining(ctx)) throw sessionErrors.draining();

  const loaded = await loadAgentForSession(ctx.sql, projectId, req.agent_id);
  if (!loaded) throw sessionErrors.agentNotFound();
  const agent = loaded.agent;
  if (!agent.is_active) throw sessionErrors.agentInactive();

  const variableErrors = checkVariables(agent.variables ?? [], req.variables);
  if (variableErrors.length) throw errors.validation(variableErrors);

  if (req.check) await req.check(agent);

  if (!loaded.providers_ready) throw sessionErrors.providersUnavailable();

  const maxDuration = effectiveMaxDuration(req.max_duration_seconds, agent.max_duration_seconds);
  const hold = holdFor(maxDuration);
  const token = randomToken(32); // 256 bits
  const sessionId = randomUUID();
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + req.tokenTtlSeconds * 1000);

  // Wallet before concurrency (contract §5): an unfunded project hears 402 even when it is full.
  const project = await getProjectCallLimits(ctx.sql, projectId);
  const funds = await readWallet(ctx.sql, projectId);
  if (!funds || funds.balance - funds.held < hold) throw sessionErrors.walletInsufficient();
  const pk = req.publishableKey;
  const keyBudget: KeyBudget | undefined = pk && { keyId: pk.id, max: pk.max_concurrent_sessions, leaseUntilMs: keySlotLeaseUntil(expiresAt, maxDuration) };
  const giveBack = async () => {
    await releaseSlot(ctx, projectId, sessionId);
    if (pk) await releaseKeySlot(ctx, pk.id, sessionId);
  };
  const slot = await takeSlot(ctx, projectId, sessionId, project.max_concurrent_sessions, expiresAt.getTime() + CREATED_SLOT_MARGIN_MS, keyBudget).catch((err: unknown) => {
    // A hung Redis may still run the take once it wakes: the release queued behind it undoes it.
    void giveBack().catch(() => {});
    throw err;
  });
  if (!slot.taken) throw sessionErrors.concurrencyLimit(slot.retryAfterSeconds);

  // The media node last: a project at its limit hears 429 whatever the nodes' load.
  let media: MediaTarget | null = null;
  try {
    const target = (media = await pickMediaNode(ctx, sessionId, req.tokenTtlSeconds * 1000));

    const row = await ctx.sql.begin(async (tx) => {
      if (req.begin) await req.begin(tx);
      // Every admission of the project waits for the wallet row lock, which the hold's update
      // takes and which is held until commit. So the lock spans one round trip before the
      // checks: the hold, the key's count, the session row (whose trigger counts it in the
      // wallet row) and the hold's ledger row go pipelined (one connection runs them in order),
      // and a refusal rolls them all back. The project's live sessions come from the wallet
      // row's counter; the exact count runs only at the limit (live-limit.ts).
      const [covered, keyLive, inserted] = await Promise.all([
        holdIfCovered(tx, projectId, hold),
        pk ? countLiveKeySessions(tx, pk.id, now) : 0,
        insertSession(tx, {
          id: sessionId,
          project_id: projectId,
          agent_id: agent.id,
          agent_version: agent.version,
          direction: req.direction,
          language: agent.language,
          pipeline_mode: agent.pipeline_mode,
          pipeline_snapshot: loaded.snapshot,
          project_revision: project.revision,
          sample_rate_in: req.sample_rate_in,
          sample_rate_out: req.sample_rate_out,
          encoding: req.encoding,
          max_duration_seconds: maxDuration,
          created_at: now,
          record: agent.record_calls && (req.record ?? true),
          store_transcript: agent.store_transcript && (req.store_transcript ?? true),
          metadata: req.metadata ?? null,
          variables: req.variables,
          rate_nano_usd_per_min: RATE_NANO_USD_PER_MIN,
          rate_version: RATE_VERSION,
          hold_nano_usd: hold,
          token_hash: sha256Hex(token),
          token_expires_at: expiresAt,
          media_node_id: target.nodeId,
          media_node_url: target.nodeId ? target.url : null,
        }),
        recordHold(tx, projectId, sessionId, hold, now),
      ]);
      if (!covered) throw sessionErrors.walletInsufficient();
      if (!(await roomForOneMore(tx, projectId, covered.unsettledSessions, project.max_concurrent_sessions, now))) {
        throw sessionErrors.concurrencyLimit(LIVE_LIMIT_RETRY_AFTER_SECONDS);
      }
      if (pk && keyLive >= pk.max_concurrent_sessions) throw sessionErrors.concurrencyLimit(LIVE_LIMIT_RETRY_AFTER_SECONDS);
      if (pk) {
        await setSessionPublishableKey(tx, sessionId, pk.id);
        inserted.publishable_key_id = pk.id;
      }
      return req.finish ? req.finish(tx, inserted) : inserted;
    });
    return { row, token, expiresAt, media: target };
  } catch (err) {
    if (media) await releaseMediaNode(ctx, media, sessionId).catch(() => {});
    await giveBack().catch((e: unknown) =>
      ctx.log.warn({ err: { message: (e as Error).message }, session_id: sessionId }, 'slot of a failed admission not released; its lease will expire'),
    );
    throw err;
  }
}

/** Admits a web media session (`POST /v2/voice/sessions`; browser sessions add their key's limits). */
export async function admitSession(
  ctx: AppContext,
  projectId: string,
  body: CreateVoiceSessionBody,
  extra: Pick<CallAdmission, 'publishableKey'> & { tokenTtlSeconds?: number } = {},
): Promise<AdmittedSession> {
  const ttl = extra.tokenTtlSeconds ?? WS_URL_TTL_SECONDS;
  const { row, token, media } = await admitCall(ctx, projectId, { ...body, direction: 'web', tokenTtlSeconds: ttl, publishableKey: extra.publishableKey });
  return {
    session: toSessionInfo(row),
    ws_url: `${media.url}/v2/voice/sessions/${row.id}/stream?token=${token}`,
    expires_in_seconds: ttl,
  };
}
