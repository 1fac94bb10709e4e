import type { AppContext } from '../../shared/app-context.js';
import { errors } from '../../shared/errors.js';
import type { Db, Tx } from '../../shared/sql.js';

export interface ProjectInfo {
  id: string;
  name: string;
  api_rpm: number;
  max_concurrent_sessions: number;
  revision: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'name', 'api_rpm', 'max_concurrent_sessions', 'revision', 'created_at', 'updated_at'];

export async function createProject(ctx: AppContext, accountId: string, name: string): Promise<ProjectInfo> {
  const [row] = await ctx.sql<ProjectInfo[]>`
    insert into projects (account_id, name) values (${accountId}, ${name}) returning ${ctx.sql(COLUMNS)}`;
  return row;
}

export async function listProjects(ctx: AppContext, accountId: string, limit: number, offset: number) {
  return ctx.sql<ProjectInfo[]>`
    select ${ctx.sql(COLUMNS)} from projects where account_id = ${accountId}
    order by created_at desc, id desc limit ${limit} offset ${offset}`;
}

export async function getOwnedProject(ctx: AppContext, accountId: string, projectId: string): Promise<ProjectInfo> {
  const [row] = await ctx.sql<ProjectInfo[]>`
    select ${ctx.sql(COLUMNS)} from projects where id = ${projectId} and account_id = ${accountId}`;
  if (!row) throw errors.notFound('project not found');
  return row;
}

export async function renameProject(ctx: AppContext, accountId: string, projectId: string, name: string) {
  const [row] = await ctx.sql<ProjectInfo[]>`
    update projects set name = ${name}, updated_at = now()
    where id = ${projectId} and account_id = ${accountId} returning ${ctx.sql(COLUMNS)}`;
  if (!row) throw errors.notFound('project not found');
  return row;
}

/** Admin: limits change call behaviour, so they bump the project revision. */
export async function setProjectLimits(
  ctx: AppContext,
  projectId: string,
  limits: { api_rpm?: number; max_concurrent_sessions?: number },
): Promise<ProjectInfo> {
  const changes = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
  if (Object.keys(changes).length === 0) throw new Error('nothing to change: pass --api-rpm or --max-concurrent-sessions');
  const [row] = await ctx.sql<ProjectInfo[]>`
    update projects set ${ctx.sql(changes)}, revision = revision + 1, updated_at = now()
    where id = ${projectId} returning ${ctx.sql(COLUMNS)}`;
  if (!row) throw errors.notFound('project not found');
  return row;
}

/** Anything that changes how calls behave (limits, provider accounts, carriers) bumps the revision. */
export async function bumpProjectRevision(db: Db, projectId: string): Promise<void> {
  await db`update projects set revision = revision + 1, updated_at = now() where id = ${projectId}`;
}

/** The project's id and suspension if `accountId` owns it, else undefined. */
export async function findOwnedProjectStatus(db: Db, accountId: string, projectId: string): Promise<{ id: string; suspended: boolean } | undefined> {
  const [row] = await db<{ id: string; suspended: boolean }[]>`
    select id, suspended from projects where id = ${projectId} and account_id = ${accountId}`;
  return row;
}

export async function projectExists(db: Db, projectId: string): Promise<boolean> {
  const [row] = await db`select 1 from projects where id = ${projectId}`;
  return row !== undefined;
}

export interface ProjectCallLimits {
  revision: number;
  max_concurrent_sessions: number;
}

/** What admitting or connecting a call reads from its (existing) project. */
export async function getProjectCallLimits(db: Db, projectId: string): Promise<ProjectCallLimits> {
  const [row] = await db<ProjectCallLimits[]>`select revision, max_concurrent_sessions from projects where id = ${projectId}`;
  return row;
}

/** FOR KEY SHARE on the project row until the transaction ends: a FOR UPDATE of it (account deletion) waits. */
export async function lockProjectKeyShare(tx: Tx, projectId: string): Promise<void> {
  await tx`select id from projects where id = ${projectId} for key share`;
}

/** FOR UPDATE on the project row until the transaction ends. */
export async function lockProject(tx: Tx, projectId: string): Promise<void> {
  await tx`select id from projects where id = ${projectId} for update`;
}
