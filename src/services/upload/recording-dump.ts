// A recording's database rows as JSON lines (one file per table) and back: what lets `pull`
// reproduce a recording exactly (raw layer, steps, the edit log, labels, reviews, keyframes) in
// another library. Tables are discovered from the schema, so tables added by later migrations
// travel too; ids that reference each other are remapped on restore.
import { EDIT_STEP_ID_PREFIX } from '../../shared/contract';
import { createHash } from 'node:crypto';
import { AppError } from '../../shared/errors';
import type { Library } from '../library/library';
import type { Db } from '../../store';
import {
  getRecordingRow,
  insertTableRow,
  iterateRecordingRows,
  listRecordingTables,
  tableColumns,
  updateTableRow,
  type RecordingTable,
} from '../../store/queries/table-rows';

/** Tables that describe the local upload/pull bookkeeping, never part of a submission. */
const LOCAL_TABLES = new Set(['uploads', 'upload_objects', 'upload_parts', 'pulls']);
/** The raw layer (immutable capture streams) goes under `raw/`, review work under `steps/`. */
const RAW_TABLES = new Set(['events', 'ax_records', 'windows', 'marks', 'videos']);
const STEP_TABLES = new Set(['steps', 'edits', 'labels', 'reviews', 'keyframes']);

/** A table keyed by recording. */
export type { RecordingTable };

/** A row as JSON (BLOBs as `{ "$base64": "…" }`). */
export type DumpRow = Record<string, unknown>;

// Every table with a recording_seq column except the local upload bookkeeping, by name.
export function recordingTables(db: Db): RecordingTable[] {
  return listRecordingTables(db, LOCAL_TABLES);
}

// The submission folder a table's dump goes to (`raw/`, `steps/` or `db/`).
export function tableDumpPath(table: string): string {
  const dir = RAW_TABLES.has(table) ? 'raw' : STEP_TABLES.has(table) ? 'steps' : 'db';
  return `${dir}/${table}.jsonl`;
}

function encodeValue(v: unknown): unknown {
  return Buffer.isBuffer(v) ? { $base64: v.toString('base64') } : v;
}

function decodeValue(v: unknown): unknown {
  if (v && typeof v === 'object' && !Array.isArray(v) && '$base64' in v) {
    const b64 = v.$base64;
    return Buffer.from(typeof b64 === 'string' ? b64 : '', 'base64');
  }
  return v;
}

// The recording row without its local sequence number.
export function dumpRecordingRow(db: Db, seq: number): DumpRow {
  const row = getRecordingRow(db, seq);
  if (!row) {
    throw new AppError('NOT_FOUND', `No recording with seq ${seq}`);
  }
  const { seq: _seq, ...rest } = row;
  return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, encodeValue(v)]));
}

// Streams one table's rows of a recording as JSON lines (recording_seq left out).
export function* dumpTableLines(db: Db, table: RecordingTable, seq: number): Generator<string> {
  for (const row of iterateRecordingRows(db, table, seq)) {
    const out: DumpRow = {};
    for (const [k, v] of Object.entries(row)) {
      if (k !== 'recording_seq') {
        out[k] = encodeValue(v);
      }
    }
    yield `${JSON.stringify(out)}\n`;
  }
}

/** What {@link restoreRecording} needs. */
export type RecordingDump = {
  recording: DumpRow;
  /** Rows per table, in dump order. */
  tables: Map<string, DumpRow[]>;
};

const EDIT_REF_RE = new RegExp(`^${EDIT_STEP_ID_PREFIX}(\\d+)$`);

function remapString(
  value: string,
  editIds: Map<number, number>,
  oldDir: string,
  newDir: string,
  /** Also remap numeric `editId` fields (edit provenance inside computed steps). */
  isComputedSteps = false,
): string {
  let v = value;
  if (oldDir !== newDir && v.startsWith(`${oldDir}/`)) {
    v = `${newDir}${v.slice(oldDir.length)}`;
  }
  const m = EDIT_REF_RE.exec(v);
  if (m) {
    const mapped = editIds.get(Number(m[1]));
    return mapped === undefined ? v : `${EDIT_STEP_ID_PREFIX}${mapped}`;
  }
  if (
    (v.startsWith('{') || v.startsWith('[')) &&
    (isComputedSteps || v.includes(EDIT_STEP_ID_PREFIX))
  ) {
    // JSON text (payload_json, data_json): replace whole-string references inside it
    let changed = false;
    const walk = (x: unknown): unknown => {
      if (typeof x === 'string') {
        const r = EDIT_REF_RE.exec(x);
        const mapped = r ? editIds.get(Number(r[1])) : undefined;
        if (mapped !== undefined && mapped !== Number(r![1])) {
          changed = true;
          return `${EDIT_STEP_ID_PREFIX}${mapped}`;
        }
        return x;
      }
      if (Array.isArray(x)) {
        return x.map(walk);
      }
      if (x && typeof x === 'object') {
        return Object.fromEntries(
          Object.entries(x).map(([k, y]) => {
            if (isComputedSteps && k === 'editId' && typeof y === 'number') {
              const mapped = editIds.get(y);
              if (mapped !== undefined && mapped !== y) {
                changed = true;
                return [k, mapped];
              }
            }
            return [k, walk(y)];
          }),
        );
      }
      return x;
    };
    try {
      const next = walk(JSON.parse(v));
      return changed ? JSON.stringify(next) : v;
    } catch {
      return v;
    }
  }
  return v;
}

function remapRow(
  row: DumpRow,
  editIds: Map<number, number>,
  oldDir: string,
  newDir: string,
): DumpRow {
  const out: DumpRow = {};
  for (const [k, v] of Object.entries(row)) {
    out[k] = typeof v === 'string' ? remapString(v, editIds, oldDir, newDir) : decodeValue(v);
  }
  return out;
}

function checkColumns(db: Db, table: string, rows: readonly DumpRow[]): void {
  const known = new Set(tableColumns(db, table).map((c) => c.name));
  if (!known.size) {
    throw new AppError(
      'PULL_INVALID',
      `The submission has rows for table "${table}", which this library does not have; ` +
        'upgrade cua-annotator.',
    );
  }
  for (const row of rows) {
    for (const k of Object.keys(row)) {
      if (!known.has(k)) {
        throw new AppError(
          'PULL_INVALID',
          `The submission's ${table} rows have a column "${k}" this library does not know; ` +
            'upgrade cua-annotator.',
        );
      }
    }
  }
}

/** What {@link restoreRecording} did. */
export type RestoredRecording = {
  seq: number;
  /** Old edit id → new edit id (step ids `edit:<id>` were rewritten accordingly). */
  editIds: Map<number, number>;
};

// Rewrites edit references inside computed steps (JSON text): `edit:<old id>` step ids and the
// numeric `editId` of edit provenance, to the ids the edits got in this library.
export function remapEditRefs(json: string, editIds: Map<number, number>): string {
  return remapString(json, editIds, '', '', true);
}

// Inserts a dumped recording (call inside a transaction); returns its new sequence number.
// `dir` is the recording's folder in this library; paths under the old folder are rewritten.
export function restoreRecording(db: Db, dump: RecordingDump, dir: string): RestoredRecording {
  const oldDir = typeof dump.recording.dir === 'string' ? dump.recording.dir : '';
  checkColumns(db, 'recordings', [dump.recording]);
  // a pulled recording is reproduced with its import key unless this library already imported
  // the same video itself: then the pulled copy goes unkeyed (pulls are keyed by recording id)
  const key = dump.recording.source_fingerprint;
  const isKeyTaken =
    typeof key === 'string' &&
    db.prepare('SELECT 1 FROM recordings WHERE source_fingerprint = ?').get(key) !== undefined;
  const recording = isKeyTaken
    ? { ...dump.recording, dir, source_fingerprint: null }
    : { ...dump.recording, dir };
  const recordingRow = remapRow(recording, new Map(), oldDir, dir);
  const seq = insertTableRow(db, 'recordings', recordingRow);
  const local = new Map(recordingTables(db).map((t) => [t.name, t]));
  for (const [name, rows] of dump.tables) {
    if (LOCAL_TABLES.has(name) || !rows.length) {
      continue;
    }
    checkColumns(db, name, rows);
    if (!local.has(name)) {
      throw new AppError(
        'PULL_INVALID',
        `Table "${name}" of the submission is not keyed by recording here; upgrade cua-annotator.`,
      );
    }
  }
  // the edit log first: inserted/split steps are named after edit ids (`edit:<id>`)
  const editIds = new Map<number, number>();
  const editsTable = local.get('edits');
  const editRows = dump.tables.get('edits') ?? [];
  if (editsTable?.rowidColumn) {
    const idCol = editsTable.rowidColumn;
    for (const row of editRows) {
      const { [idCol]: oldId, ...rest } = row;
      const newId = insertTableRow(db, 'edits', { ...rest, recording_seq: seq });
      editIds.set(Number(oldId), newId);
    }
    for (const row of editRows) {
      const newId = editIds.get(Number(row[idCol]))!;
      const remapped = remapRow(row, editIds, oldDir, dir);
      const changed = Object.keys(row).filter((k) => k !== idCol && remapped[k] !== row[k]);
      updateTableRow(
        db,
        'edits',
        idCol,
        newId,
        Object.fromEntries(changed.map((k) => [k, remapped[k]])),
      );
    }
  }
  for (const [name, rows] of dump.tables) {
    if (LOCAL_TABLES.has(name) || (name === 'edits' && editsTable?.rowidColumn)) {
      continue;
    }
    const table = local.get(name)!;
    for (const row of rows) {
      const remapped = remapRow(row, editIds, oldDir, dir);
      if (table.rowidColumn) {
        delete remapped[table.rowidColumn];
      }
      insertTableRow(db, name, { ...remapped, recording_seq: seq });
    }
  }
  // triggers (e.g. recordings.step_count) ran while rows went in: put the row back as dumped
  updateTableRow(db, 'recordings', 'seq', seq, recordingRow);
  return { seq, editIds };
}

// SHA-256 over every database row of a recording (the table dumps): changes with any edit,
// label, review or re-reduction, so a staged or uploaded submission can tell it is stale.
export function recordingFingerprint(lib: Library, seq: number): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(dumpRecordingRow(lib.db, seq)));
  for (const table of recordingTables(lib.db)) {
    hash.update(`\n#${table.name}\n`);
    for (const line of dumpTableLines(lib.db, table, seq)) {
      hash.update(line);
    }
  }
  return hash.digest('hex');
}
