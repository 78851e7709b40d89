// Opens the hub database: embedded PGlite in a data folder (the default: no other server) or
// PostgreSQL ≥ 15 through `pg`, both as one Kysely instance over the same schema and queries.
// The embedded data folder is locked for this process (data-lock.ts); both backends are migrated
// on open (migrate.ts). docs/team-mode.md §2–§4.
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import { AppError, isAppError } from '../../shared/errors';
import { acquireDataLock, type DataLock, type DataLockPurpose } from './data-lock';
import { migrateHubDb, type MigrationResult } from './migrate';
import { HUB_MIGRATIONS, type HubMigration } from './migrations';
import type { HubTables } from './schema';

/** Where the hub keeps its data: an embedded folder, or a PostgreSQL URL. */
export type HubDbTarget = { data: string } | { url: string };

/** Options of {@link openHubDb}. */
export type OpenHubDbOptions = {
  /** Named in the data-folder lock and in a refusal (default `cua-annotator`). */
  holder?: string;
  /** `hub` for the server, `cli` for a one-shot command (default): the refusal's fix differs. */
  purpose?: DataLockPurpose;
  /** Create the data folder when missing (default true); false: NOT_FOUND instead. */
  create?: boolean;
  /** The migrations to apply (default: all of this build; tests pass fewer to be an old build). */
  migrations?: readonly HubMigration[];
  /** PostgreSQL: the most connections the pool opens (default 10, pg's); PGlite has one. */
  maxConnections?: number;
};

/** An open hub database. */
export type HubDatabase = {
  db: Kysely<HubTables>;
  backend: 'pglite' | 'postgres';
  /** The data folder, or the URL without its password. */
  location: string;
  migration: MigrationResult;
  /** What the job engine connects to (src/hub/jobs/engine.ts, docs/jobs.md): the same PGlite
   * instance (its one connection, shared with this handle), or the PostgreSQL URL (the engine
   * opens a pool of its own). */
  jobTarget: { pglite: PGlite } | { url: string };
  /** Closes the database and releases the data-folder lock; safe to call twice. */
  close: () => Promise<void>;
};

/** The embedded database's folder inside the data folder. */
export const PGLITE_SUBDIR = 'pg';

// PostgreSQL type oid of bigint (int8): ids and count(*) are numbers on both backends (pg reads
// them as strings, PGlite as numbers); hub ids and counts stay far below 2^53
const INT8_OID = 20;
const toNumber = (value: string): number => Number(value);
// PostgreSQL 15 is the oldest server the hub supports (Debian 12's; MERGE, NULLS NOT DISTINCT)
const MIN_SERVER_VERSION = 150000;

/** Opens (creating and migrating as needed) the hub database at `target`. */
export async function openHubDb(
  target: HubDbTarget,
  options: OpenHubDbOptions = {},
): Promise<HubDatabase> {
  return 'data' in target
    ? await openEmbedded(path.resolve(target.data), options)
    : await openPostgres(target.url, options);
}

async function finishOpen(
  db: Kysely<HubTables>,
  backend: HubDatabase['backend'],
  location: string,
  options: OpenHubDbOptions,
  jobTarget: HubDatabase['jobTarget'],
  onClose: () => Promise<void> = () => Promise.resolve(),
): Promise<HubDatabase> {
  let closed = false;
  const close = async () => {
    if (closed) {
      return;
    }
    closed = true;
    try {
      await db.destroy();
    } finally {
      await onClose();
    }
  };
  try {
    const migration = await migrateHubDb(db, options.migrations ?? HUB_MIGRATIONS);
    return { db, backend, location, migration, jobTarget, close };
  } catch (e) {
    await close();
    throw e;
  }
}

async function openEmbedded(dir: string, options: OpenHubDbOptions): Promise<HubDatabase> {
  const pgDir = path.join(dir, PGLITE_SUBDIR);
  if (options.create === false && !(await isDir(pgDir))) {
    throw new AppError(
      'NOT_FOUND',
      `no hub data in ${dir} (no ${PGLITE_SUBDIR}/ folder)`,
      { dir },
      'Check --data (the folder the hub was started with), or make the first account with ' +
        '`cua-annotator hub user add NAME --role admin --data DIR`.',
    );
  }
  // the folder holds password hashes: the owner alone reads it
  await mkdir(pgDir, { recursive: true, mode: 0o700 });
  const lock: DataLock = await acquireDataLock(dir, {
    holder: options.holder ?? 'cua-annotator',
    purpose: options.purpose ?? 'cli',
  });
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({ dataDir: pgDir, parsers: { [INT8_OID]: toNumber } });
  } catch (e) {
    await lock.release();
    throw new AppError(
      'DB_CORRUPT',
      `could not open the embedded hub database in ${pgDir}: ${(e as Error).message}`,
      { dir: pgDir },
      'A data folder made by another PGlite version does not open here: open it with the ' +
        'cua-annotator that made it, or restore a backup of the folder.',
    );
  }
  const db = new Kysely<HubTables>({ dialect: new PGliteDialect({ pglite }) });
  return await finishOpen(db, 'pglite', dir, options, { pglite }, () => lock.release());
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) {
      u.password = '***';
    }
    return u.toString();
  } catch {
    return '(an unreadable URL)';
  }
}

async function openPostgres(url: string, options: OpenHubDbOptions): Promise<HubDatabase> {
  const shown = redactUrl(url);
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new AppError(
      'USAGE',
      `--database must be a postgres:// or postgresql:// URL (got "${shown}")`,
      undefined,
      'Give the database as postgres://USER:PASSWORD@HOST:PORT/DATABASE, or use --data DIR.',
    );
  }
  const pool = new pg.Pool({
    connectionString: url,
    connectionTimeoutMillis: 10_000,
    max: options.maxConnections ?? 10,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
        oid === INT8_OID && format !== 'binary'
          ? toNumber
          : (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser,
    },
  });
  // an idle connection the server dropped: the next query reconnects or fails with its own error
  pool.on('error', () => undefined);
  // a connection checked out (Kysely holds one from acquire to release) has no listener of the
  // pool's: a server restart in that moment emitted an unhandled 'error' and killed the process
  // (seen: a worker died when PostgreSQL restarted). The query under way still fails with the
  // error, and the pool drops the broken client when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  try {
    const res = await pool.query<{ v: string }>(
      `SELECT current_setting('server_version_num') AS v`,
    );
    const version = Number(res.rows[0]?.v ?? 0);
    if (version < MIN_SERVER_VERSION) {
      throw new AppError(
        'HUB_DB_UNREACHABLE',
        `the PostgreSQL server at ${shown} is version ${version}; the hub needs 15 or newer`,
        { version },
        'Upgrade the server to PostgreSQL 15 or newer, or use the embedded default (--data DIR).',
      );
    }
  } catch (e) {
    await pool.end();
    if (isAppError(e)) {
      throw e;
    }
    const err = e as Error & { code?: string };
    throw new AppError(
      'HUB_DB_UNREACHABLE',
      `cannot reach the hub database ${shown}: ${err.message}${err.code ? ` (${err.code})` : ''}`,
      { code: err.code },
      'Check that PostgreSQL (15 or newer) runs at that host and port and that the URL names ' +
        'an existing database (createdb NAME) with a user and password it accepts.',
    );
  }
  const db = new Kysely<HubTables>({ dialect: new PostgresDialect({ pool }) });
  return await finishOpen(db, 'postgres', shown, options, { url });
}

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

// network failures and PostgreSQL's "connection exception" (08…) and "operator intervention"
// (57P…: shutdown, crash) classes: the database is gone, not the request wrong
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** HUB_DB_UNREACHABLE (with a fix) for an error that says the hub's database cannot be
 * reached while the hub runs (a stopped or restarting PostgreSQL), else null. */
export function dbUnreachableError(e: unknown): AppError | null {
  if (!(e instanceof Error) || isAppError(e)) {
    return null;
  }
  const code = (e as Error & { code?: unknown }).code;
  const isGone =
    (typeof code === 'string' &&
      (UNREACHABLE_CODES.has(code) || code.startsWith('08') || code.startsWith('57P'))) ||
    /Connection terminated|connection timeout|Client has encountered a connection error/i.test(
      e.message,
    );
  if (!isGone) {
    return null;
  }
  return new AppError(
    'HUB_DB_UNREACHABLE',
    `the hub cannot reach its database: ${e.message}${typeof code === 'string' ? ` (${code})` : ''}`,
    typeof code === 'string' ? { code } : undefined,
    'Your work stays in your library: try again later. The hub’s admin: check that PostgreSQL ' +
      'runs and accepts the hub’s connections (the hub reconnects by itself).',
  );
}
