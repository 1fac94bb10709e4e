import type { AppContext } from '../../shared/app-context.js';
import { carrierErrors, fieldError } from '../../shared/errors.js';
import { isUniqueViolation } from '../../shared/pg-errors.js';
import type { Db, Tx } from '../../shared/sql.js';
import { getCarrier, type CarrierInfo } from './carriers.js';
import { bumpProjectRevision } from './projects.js';

// Phone numbers on a carrier connection. A number is live on at most one carrier of a project
// (partial unique index); `agent_id` makes it answer inbound calls with that agent and
// `outbound_enabled` lets outbound calls use it as `from`. Both change call behaviour, so every
// change bumps the project revision.

export interface CarrierNumberInfo {
  id: string;
  carrier_id: string;
  project_id: string;
  e164: string;
  outbound_enabled: boolean;
  agent_id: string | null;
  /** Whether the carrier sends the number's calls to us (bound numbers) or was put back (unbound). */
  carrier_configured: boolean;
  carrier_error: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'carrier_id', 'project_id', 'e164', 'outbound_enabled', 'agent_id', 'carrier_configured', 'carrier_error', 'created_at', 'updated_at'];
const N_COLUMNS = COLUMNS.map((c) => `n.${c}`).join(', ');

async function requireProjectAgent(tx: Tx, projectId: string, agentId: string | null | undefined): Promise<void> {
  if (agentId === null || agentId === undefined) return;
  const [row] = await tx`select 1 from agents where id = ${agentId} and project_id = ${projectId}`;
  if (!row) throw fieldError(['body', 'agent_id'], 'agent not found in this project');
}

export async function createCarrierNumber(
  ctx: AppContext,
  projectId: string,
  carrierId: string,
  input: { e164: string; outboundEnabled: boolean; agentId: string | null },
): Promise<CarrierNumberInfo> {
  try {
    return await ctx.sql.begin(async (tx) => {
      await getCarrier(tx, projectId, carrierId, { lock: true });
      await requireProjectAgent(tx, projectId, input.agentId);
      const [row] = await tx<CarrierNumberInfo[]>`
        insert into carrier_numbers (carrier_id, project_id, e164, outbound_enabled, agent_id)
        values (${carrierId}, ${projectId}, ${input.e164}, ${input.outboundEnabled}, ${input.agentId})
        returning ${tx(COLUMNS)}`;
      await bumpProjectRevision(tx, projectId);
      return row;
    });
  } catch (err) {
    if (isUniqueViolation(err, 'carrier_numbers_project_e164')) throw carrierErrors.numberTaken();
    throw err;
  }
}

export async function listCarrierNumbers(ctx: AppContext, projectId: string, carrierId: string, limit: number, offset: number) {
  await getCarrier(ctx.sql, projectId, carrierId);
  return ctx.sql<CarrierNumberInfo[]>`
    select ${ctx.sql(COLUMNS)} from carrier_numbers
    where carrier_id = ${carrierId} and project_id = ${projectId} and deleted_at is null
    order by created_at desc, id desc limit ${limit} offset ${offset}`;
}

export async function getCarrierNumber(sql: Db, projectId: string, carrierId: string, numberId: string): Promise<CarrierNumberInfo> {
  const [row] = await sql<CarrierNumberInfo[]>`
    select ${sql(COLUMNS)} from carrier_numbers
    where id = ${numberId} and carrier_id = ${carrierId} and project_id = ${projectId} and deleted_at is null`;
  if (!row) throw carrierErrors.numberNotFound();
  return row;
}

export async function updateCarrierNumber(
  ctx: AppContext,
  projectId: string,
  carrierId: string,
  numberId: string,
  changes: { outboundEnabled?: boolean; agentId?: string | null },
): Promise<CarrierNumberInfo> {
  return ctx.sql.begin(async (tx) => {
    await getCarrier(tx, projectId, carrierId);
    const current = await getCarrierNumber(tx, projectId, carrierId, numberId);
    await requireProjectAgent(tx, projectId, changes.agentId);
    const set = {
      outbound_enabled: changes.outboundEnabled ?? current.outbound_enabled,
      agent_id: changes.agentId === undefined ? current.agent_id : changes.agentId,
    };
    const [row] = await tx<CarrierNumberInfo[]>`
      update carrier_numbers set ${tx(set)}, updated_at = now()
      where id = ${numberId} returning ${tx(COLUMNS)}`;
    await bumpProjectRevision(tx, projectId);
    return row;
  });
}

export async function deleteCarrierNumber(ctx: AppContext, projectId: string, carrierId: string, numberId: string): Promise<CarrierNumberInfo> {
  return ctx.sql.begin(async (tx) => {
    await getCarrier(tx, projectId, carrierId, { lock: true });
    await getCarrierNumber(tx, projectId, carrierId, numberId);
    const [row] = await tx<CarrierNumberInfo[]>`
      update carrier_numbers set deleted_at = now(), updated_at = now()
      where id = ${numberId} returning ${tx(COLUMNS)}`;
    await bumpProjectRevision(tx, projectId);
    return row;
  });
}

export interface NumberWithCarrier {
  number: CarrierNumberInfo;
  carrier: CarrierInfo;
}

function toNumberWithCarrier(row: Record<string, unknown>): NumberWithCarrier {
  const { carrier, ...number } = row as unknown as CarrierNumberInfo & { carrier: CarrierInfo & { created_at: string; updated_at: string } };
  return {
    number,
    carrier: { ...carrier, created_at: new Date(carrier.created_at), updated_at: new Date(carrier.updated_at) },
  };
}

const CARRIER_JSON = `json_build_object('id', c.id, 'project_id', c.project_id, 'kind', c.kind, 'label', c.label,
  'base_url', c.base_url, 'account_sid', c.account_sid, 'public_key', c.public_key, 'connection_id', c.connection_id, 'token_hint', c.token_hint, 'status', c.status,
  'status_detail', c.status_detail, 'revision', c.revision, 'created_at', c.created_at, 'updated_at', c.updated_at) as carrier`;

/** Outbound `from`: the project's live number with that E.164 and its carrier (any status), or null. */
export async function findProjectNumber(sql: Db, projectId: string, e164: string): Promise<NumberWithCarrier | null> {
  const [row] = await sql.unsafe(
    `select ${N_COLUMNS}, ${CARRIER_JSON}
     from carrier_numbers n join carriers c on c.id = n.carrier_id and c.deleted_at is null
     where n.project_id = $1 and n.e164 = $2 and n.deleted_at is null`,
    [projectId, e164],
  );
  return row ? toNumberWithCarrier(row) : null;
}

/**
 * Inbound webhook: every live number `e164` on a live carrier of Twilio account `accountSid`,
 * verified carriers first. Several projects may claim the same account and number (only one of
 * them holds the real auth token), so the caller must route to the candidate whose auth token
 * validates the request's X-Twilio-Signature, never on the number alone.
 */
export async function findInboundCandidates(sql: Db, accountSid: string, e164: string): Promise<NumberWithCarrier[]> {
  const rows = await sql.unsafe(
    `select ${N_COLUMNS}, ${CARRIER_JSON}
     from carrier_numbers n join carriers c on c.id = n.carrier_id and c.deleted_at is null
     where c.account_sid = $1 and n.e164 = $2 and n.deleted_at is null
     order by (c.status = 'verified') desc, n.created_at, n.id`,
    [accountSid, e164],
  );
  return rows.map(toNumberWithCarrier);
}

/** Inbound voice webhook: the live number `e164` on this carrier, or null. */
export async function findCarrierNumber(sql: Db, carrierId: string, e164: string): Promise<CarrierNumberInfo | null> {
  const [row] = await sql<CarrierNumberInfo[]>`
    select ${sql(COLUMNS)} from carrier_numbers
    where carrier_id = ${carrierId} and e164 = ${e164} and deleted_at is null`;
  return row ?? null;
}

/** What we know of a number at its carrier (never part of the API document). */
export interface NumberCarrierState {
  carrier_number_ref: string | null;
  carrier_previous: Record<string, string> | null;
  carrier_configured: boolean;
  carrier_error: string | null;
}

export async function getNumberCarrierState(sql: Db, numberId: string): Promise<NumberCarrierState | null> {
  const [row] = await sql<NumberCarrierState[]>`
    select carrier_number_ref, carrier_previous, carrier_configured, carrier_error from carrier_numbers where id = ${numberId}`;
  return row ?? null;
}

/** Stores the outcome of a carrier change (only the fields given). */
export async function recordNumberCarrierState(
  sql: Db,
  numberId: string,
  set: { ref?: string; previous?: Record<string, string> | null; configured?: boolean; error?: string | null },
): Promise<CarrierNumberInfo | null> {
  const cols: Record<string, unknown> = { carrier_synced_at: new Date() };
  if (set.ref !== undefined) cols.carrier_number_ref = set.ref;
  if (set.previous !== undefined) cols.carrier_previous = set.previous === null ? null : sql.json(set.previous);
  if (set.configured !== undefined) cols.carrier_configured = set.configured;
  if (set.error !== undefined) cols.carrier_error = set.error;
  const [row] = await sql<CarrierNumberInfo[]>`
    update carrier_numbers set ${sql(cols)} where id = ${numberId} returning ${sql(COLUMNS)}`;
  return row ?? null;
}

/** The live numbers of a carrier with these E.164s (which of an account's numbers are already imported). */
export async function findCarrierNumbersByE164(sql: Db, carrierId: string, e164s: string[]): Promise<CarrierNumberInfo[]> {
  if (!e164s.length) return [];
  return sql<CarrierNumberInfo[]>`
    select ${sql(COLUMNS)} from carrier_numbers
    where carrier_id = ${carrierId} and e164 in ${sql(e164s)} and deleted_at is null`;
}
