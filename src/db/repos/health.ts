import type { Db } from '../../shared/sql.js';

/** The cheapest round trip that proves Postgres answers (readiness probes). */
export async function pingDatabase(db: Db): Promise<void> {
  await db`select 1`;
}
