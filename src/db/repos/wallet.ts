import type { AppContext } from '../../shared/app-context.js';
import type { Db, Tx } from '../../shared/sql.js';
import { CURRENCY, MONEY_SCALE } from '../../contract/money.js';

export interface WalletInfo {
  currency: string;
  money_scale: number;
  balance_nano_usd: string;
  held_nano_usd: string;
  available_nano_usd: string;
}

export interface LedgerEntry {
  id: string;
  kind: 'credit' | 'hold' | 'release' | 'charge';
  amount_nano_usd: string;
  session_id: string | null;
  created_at: Date;
}

export async function getWallet(ctx: AppContext, projectId: string): Promise<WalletInfo> {
  const [row] = await ctx.sql<{ balance_nano_usd: bigint; held_nano_usd: bigint }[]>`
    select balance_nano_usd, held_nano_usd from wallets where project_id = ${projectId}`;
  const balance = row?.balance_nano_usd ?? 0n;
  const held = row?.held_nano_usd ?? 0n;
  return {
    currency: CURRENCY,
    money_scale: MONEY_SCALE,
    balance_nano_usd: balance.toString(),
    held_nano_usd: held.toString(),
    available_nano_usd: (balance - held).toString(),
  };
}

export async function listLedger(ctx: AppContext, projectId: string, limit: number, offset: number): Promise<LedgerEntry[]> {
  const rows = await ctx.sql<(Omit<LedgerEntry, 'amount_nano_usd'> & { amount_nano_usd: bigint })[]>`
    select id, kind, amount_nano_usd, session_id, created_at from wallet_ledger
    where project_id = ${projectId}
    order by created_at desc, id desc limit ${limit} offset ${offset}`;
  return rows.map((r) => ({ ...r, amount_nano_usd: r.amount_nano_usd.toString() }));
}

/** Adds funds and writes a credit entry, in one transaction. Returns the new balance. */
export async function creditWallet(ctx: AppContext, projectId: string, nanoUsd: bigint): Promise<bigint> {
  return ctx.sql.begin<bigint>(async (tx) => {
    const [row] = await tx<{ balance_nano_usd: bigint }[]>`
      insert into wallets (project_id, balance_nano_usd) values (${projectId}, ${nanoUsd.toString()})
      on conflict (project_id) do update
        set balance_nano_usd = wallets.balance_nano_usd + excluded.balance_nano_usd, updated_at = now()
      returning balance_nano_usd`;
    await tx`insert into wallet_ledger (project_id, kind, amount_nano_usd, created_at)
      values (${projectId}, 'credit', ${nanoUsd.toString()}, ${ctx.clock.now()})`;
    return row.balance_nano_usd;
  });
}

/** The wallet's balance and holds as they stand, without a lock (admission's early 402). */
export async function readWallet(db: Db, projectId: string): Promise<{ balance: bigint; held: bigint } | null> {
  const [row] = await db<{ balance_nano_usd: bigint; held_nano_usd: bigint }[]>`
    select balance_nano_usd, held_nano_usd from wallets where project_id = ${projectId}`;
  return row ? { balance: row.balance_nano_usd, held: row.held_nano_usd } : null;
}

/**
 * Admission's hold: adds `hold` to the wallet's holds if the balance covers it. The update takes
 * the wallet row lock (admissions of a project serialise on it until commit) and, when it waited,
 * rechecks the condition on the row the other admission committed. Null: no wallet, or not enough
 * (nothing changed). Otherwise the project's unsettled sessions (migration 0020's counter) as they
 * stood before this transaction inserted any: an upper bound of its live sessions.
 */
export async function holdIfCovered(tx: Tx, projectId: string, hold: bigint): Promise<{ unsettledSessions: number } | null> {
  const [row] = await tx<{ live_sessions: number }[]>`
    update wallets set held_nano_usd = held_nano_usd + ${hold.toString()}, updated_at = now()
    where project_id = ${projectId} and balance_nano_usd - held_nano_usd >= ${hold.toString()}
    returning live_sessions`;
  return row ? { unsettledSessions: row.live_sessions } : null;
}

/** The ledger row of the hold (after the session row: the ledger references it). */
export async function recordHold(tx: Tx, projectId: string, sessionId: string, hold: bigint, at: Date): Promise<void> {
  await tx`insert into wallet_ledger (project_id, kind, amount_nano_usd, session_id, created_at)
    values (${projectId}, 'hold', ${hold.toString()}, ${sessionId}, ${at})`;
}

/**
 * Releases the session's hold and charges its cost. The ledger's unique (session_id, kind)
 * makes a second call a no-op: the wallet moves only when both rows were new.
 */
export async function releaseAndCharge(tx: Tx, projectId: string, sessionId: string, hold: bigint, charge: bigint, at: Date): Promise<boolean> {
  const inserted = await tx`insert into wallet_ledger (project_id, kind, amount_nano_usd, session_id, created_at)
    values (${projectId}, 'release', ${hold.toString()}, ${sessionId}, ${at}),
           (${projectId}, 'charge', ${charge.toString()}, ${sessionId}, ${at})
    on conflict (session_id, kind) where session_id is not null do nothing returning id`;
  if (inserted.length !== 2) return false;
  await tx`update wallets set held_nano_usd = held_nano_usd - ${hold.toString()},
      balance_nano_usd = balance_nano_usd - ${charge.toString()}, updated_at = now()
    where project_id = ${projectId}`;
  return true;
}
