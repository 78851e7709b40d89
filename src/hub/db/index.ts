// The hub database layer (docs/team-mode.md §2): the only importer of PGlite, pg and Kysely, and
// the home of all hub SQL.
import type { HubDb, HubRootDb } from './schema';

export { acquireDataLock, DATA_LOCK_FILE, type DataLock } from './data-lock';
export { hubSchemaVersion, migrateHubDb, type MigrationResult } from './migrate';
export { HUB_MIGRATIONS, type HubMigration } from './migrations';
export {
  dbUnreachableError,
  openHubDb,
  PGLITE_SUBDIR,
  type HubDatabase,
  type HubDbTarget,
} from './open';
export * from './queries/audit';
export * from './queries/jobs';
export * from './queries/qa';
export * from './queries/sessions';
export * from './queries/stats';
export * from './queries/submissions';
export * from './queries/tasks';
export * from './queries/tokens';
export * from './queries/users';
export type { HubDb, HubRootDb, HubTables } from './schema';

/** Runs `fn` in one transaction: all its changes or none. */
export async function inTransaction<T>(db: HubRootDb, fn: (trx: HubDb) => Promise<T>): Promise<T> {
  return await db.transaction().execute(fn);
}
