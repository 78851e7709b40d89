// Generic row access by table name, for copying a recording between libraries (the upload
// bundle's dump and `pull`'s restore, src/services/upload/recording-dump.ts): tables are
// discovered from the schema, so tables added by later migrations travel too. Table and column
// names are always quoted; values always bound.
import type { Db } from '../db';

/** A column of a table. */
export type TableColumn = { name: string; type: string; pk: number };

/** A table keyed by recording. */
export type RecordingTable = {
  name: string;
  columns: TableColumn[];
  /** The INTEGER PRIMARY KEY column (rowid alias) that is re-assigned on restore, if any. */
  rowidColumn: string | null;
  orderBy: string;
};

/** A row as SQLite returns it (BLOBs as Buffers). */
export type TableRow = Record<string, unknown>;

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The columns of a table (empty when there is no such table). */
export function tableColumns(db: Db, table: string): TableColumn[] {
  return db.prepare(`SELECT name, type, pk FROM pragma_table_info(?)`).all(table) as TableColumn[];
}

function isWithoutRowid(db: Db, table: string): boolean {
  const row = db
    .prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`)
    .get(table) as { sql: string } | undefined;
  return /WITHOUT\s+ROWID/i.test(row?.sql ?? '');
}

function describeTable(db: Db, name: string): RecordingTable {
  const columns = tableColumns(db, name);
  const pks = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
  const rowidColumn =
    pks.length === 1 && pks[0]!.type.toUpperCase() === 'INTEGER' && !isWithoutRowid(db, name)
      ? pks[0]!.name
      : null;
  const orderBy = pks.length ? pks.map((c) => quoteIdent(c.name)).join(', ') : 'rowid';
  return { name, columns, rowidColumn, orderBy };
}

/** Every table with a recording_seq column except those in `exclude`, by name. */
export function listRecordingTables(db: Db, exclude: ReadonlySet<string>): RecordingTable[] {
  const names = db
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
       ORDER BY name`,
    )
    .all() as { name: string }[];
  return names
    .map((n) => n.name)
    .filter((n) => !exclude.has(n) && tableColumns(db, n).some((c) => c.name === 'recording_seq'))
    .map((n) => describeTable(db, n));
}

/** The whole `recordings` row of a recording, or undefined. */
export function getRecordingRow(db: Db, seq: number): TableRow | undefined {
  return db.prepare(`SELECT * FROM recordings WHERE seq = ?`).get(seq) as TableRow | undefined;
}

/** A recording's rows of one table, in primary-key order. */
export function iterateRecordingRows(
  db: Db,
  table: RecordingTable,
  seq: number,
): IterableIterator<TableRow> {
  return db
    .prepare(
      `SELECT * FROM ${quoteIdent(table.name)} WHERE recording_seq = ? ORDER BY ${table.orderBy}`,
    )
    .iterate(seq) as IterableIterator<TableRow>;
}

/** Inserts a row given as column → value; returns its rowid. */
export function insertTableRow(db: Db, table: string, row: TableRow): number {
  const keys = Object.keys(row);
  const info = db
    .prepare(
      `INSERT INTO ${quoteIdent(table)} (${keys.map(quoteIdent).join(', ')})
       VALUES (${keys.map(() => '?').join(', ')})`,
    )
    .run(...keys.map((k) => row[k]));
  return Number(info.lastInsertRowid);
}

/** Sets the given columns of the row whose `keyColumn` is `key`; nothing when `values` is empty. */
export function updateTableRow(
  db: Db,
  table: string,
  keyColumn: string,
  key: unknown,
  values: TableRow,
): void {
  const cols = Object.keys(values);
  if (!cols.length) {
    return;
  }
  db.prepare(
    `UPDATE ${quoteIdent(table)} SET ${cols.map((k) => `${quoteIdent(k)} = ?`).join(', ')}
     WHERE ${quoteIdent(keyColumn)} = ?`,
  ).run(...cols.map((k) => values[k]), key);
}
