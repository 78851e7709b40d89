// The hub's migration runner: each pending migration in its own transaction that also records the
// new version; a database from a newer build is refused (DB_FROM_FUTURE). On PostgreSQL several
// processes may open one database at once (the hub and `hub user add`): a transaction-scoped
// advisory lock makes them migrate one after the other. docs/team-mode.md §4.
import { sql, type Kysely } from 'kysely';
import { AppError } from '../../shared/errors';
import { HUB_MIGRATIONS, type HubMigration } from './migrations';
import type { HubDb, HubTables } from './schema';

// pg_advisory_xact_lock key of the migration runner (any constant of our own)
const MIGRATION_LOCK_KEY = 2_741_027;

/** What {@link migrateHubDb} did. */
export type MigrationResult = { from: number; to: number; applied: number[] };

async function ensureVersionTable(db: HubDb): Promise<void> {
  await sql`
    CREATE TABLE IF NOT EXISTS hub_schema (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      version integer NOT NULL
    )`.execute(db);
}

/** The schema version of `db` (0: empty). */
export async function hubSchemaVersion(db: HubDb): Promise<number> {
  const exists = await sql<{
    t: string | null;
  }>`SELECT to_regclass('hub_schema')::text AS t`.execute(db);
  if (!exists.rows[0]?.t) {
    return 0;
  }
  const row = await db.selectFrom('hub_schema').select('version').executeTakeFirst();
  return row?.version ?? 0;
}

function assertOrdered(migrations: readonly HubMigration[]): void {
  migrations.forEach((m, i) => {
    const before = migrations[i - 1];
    if (!Number.isInteger(m.version) || m.version <= 0 || (before && before.version >= m.version)) {
      throw new Error(`hub migrations out of order at version ${m.version}`);
    }
  });
}

/** Brings the hub database up to the newest migration this build knows, or refuses one that a
 * newer build has migrated further. */
export async function migrateHubDb(
  db: Kysely<HubTables>,
  migrations: readonly HubMigration[] = HUB_MIGRATIONS,
): Promise<MigrationResult> {
  assertOrdered(migrations);
  const latest = migrations.at(-1)?.version ?? 0;
  const from = await hubSchemaVersion(db);
  const applied: number[] = [];
  const check = (version: number) => {
    if (version > latest) {
      throw new AppError(
        'DB_FROM_FUTURE',
        `the hub database is at schema version ${version}, newer than this cua-annotator ` +
          `knows (${latest})`,
        { version, latest },
        'Run the newer cua-annotator that last opened this hub database (or restore a backup ' +
          'made with this version); an older build never changes a newer schema.',
      );
    }
  };
  check(from);
  for (const m of migrations) {
    if (m.version <= from) {
      continue;
    }
    await db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(trx);
      await ensureVersionTable(trx);
      // another process may have migrated while we waited for the lock
      const now = await hubSchemaVersion(trx);
      check(now);
      if (now >= m.version) {
        return;
      }
      await m.migrate(trx);
      await trx
        .insertInto('hub_schema')
        .values({ singleton: true, version: m.version })
        .onConflict((oc) => oc.column('singleton').doUpdateSet({ version: m.version }))
        .execute();
      applied.push(m.version);
    });
  }
  return { from, to: await hubSchemaVersion(db), applied };
}
