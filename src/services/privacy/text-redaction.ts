// Text redactions in the edit log (issue 14, item 3): a reviewer redacts a PII finding's text
// (`cua-annotator scan <id> --redact <findingId>` / `--redact-all`), stored as a `redact-text`
// edit (undone with the log's own undo), and applied to everything that leaves the machine:
// the exported steps (code, descriptions), task text, labels, window titles, accessibility
// data, raw key events and the upload's data dump (src/pipeline/privacy/redact-text.ts). The
// library's own rows never change.
import type { StoredEdit } from '../../shared/contract';
import type { PiiFinding, PiiKind } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import {
  PII_PLACEHOLDERS,
  textRedactor,
  type TextRedaction,
  type TextRedactor,
} from '../../pipeline/privacy/redact-text';
import { findPii } from '../../pipeline/privacy/detect';
import { listEdits, readEvents, resolveRecordingSeq } from '../../store';
import { getRecordingRow } from '../../store/queries/table-rows';
import { applyEdit, type ApplyEditOptions } from '../edits/edit-service';
import type { ExportWriter } from '../export/export-writer';
import type { Library } from '../library/library';
import { scanRecording } from './scan-service';
import { jsonStrings } from './scan-texts';

export { PII_PLACEHOLDERS, type TextRedaction, type TextRedactor };

/** The active text redactions of a recording (by its seq), in log order. */
export function textRedactionsOf(lib: Library, seq: number): TextRedaction[] {
  return listEdits(lib.db, seq, ['active']).flatMap((e) =>
    e.edit.op === 'redact-text'
      ? [{ text: e.edit.text, placeholder: PII_PLACEHOLDERS[e.edit.kind] }]
      : [],
  );
}

/** The redactor of what leaves with a recording (the identity without text redactions). */
export function textRedactorOf(lib: Library, seq: number): TextRedactor {
  return textRedactor(textRedactionsOf(lib, seq));
}

/** `out` with every text file redacted (a safety net over the per-field redaction; binary
 * files, images and videos, pass unchanged). */
export function redactingWriter(out: ExportWriter, redactor: TextRedactor): ExportWriter {
  if (!redactor.isActive) {
    return out;
  }
  return {
    target: (rel) => out.target(rel),
    file: (rel, content) =>
      out.file(rel, typeof content === 'string' ? redactor.string(content) : content),
  };
}

/** A JSON-text column value redacted as JSON (so per-character records are handled), any other
 * string as text. */
function redactColumn(redactor: TextRedactor, value: string): string {
  const t = value.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.stringify(redactor.value(JSON.parse(value) as unknown));
    } catch {
      // not JSON: redacted as text
    }
  }
  return redactor.string(value);
}

/**
 * PII that lives only in the recording's edit log (docs/privacy.md §3): texts the detectors find
 * in any edit's payload (undone and discarded edits too) that no finding of the scan has, such as
 * a label relabelled since, an undone edit that typed a card, or a redacted text whose step was
 * deleted. The scan reads what the edits make of the recording, so neither it nor the policy
 * shows these; the upload's dump of the log leaves them masked with their kind's placeholder.
 */
export function editLogOnlyRedactions(lib: Library, seq: number): TextRedaction[] {
  const detected = new Map<string, PiiKind>();
  for (const e of listEdits(lib.db, seq)) {
    for (const text of jsonStrings(e.edit)) {
      for (const m of findPii(text)) {
        detected.set(m.text, m.kind);
      }
    }
  }
  const id = detected.size ? getRecordingRow(lib.db, seq)?.id : undefined;
  if (typeof id !== 'string') {
    return [];
  }
  const found = new Set(matchedFindings(lib, id).map((m) => m.text));
  return [...detected]
    .filter(([text]) => !found.has(text))
    .map(([text, kind]) => ({ text, placeholder: PII_PLACEHOLDERS[kind] }));
}

/**
 * A redactor of the upload's table dump rows (recording-dump.ts): event rows inside a redacted
 * span get the rewritten key columns, every string column is redacted (JSON text as JSON); the
 * edit log's rows also lose the PII only it holds ({@link editLogOnlyRedactions}). Null when
 * there is nothing to redact.
 */
export function dumpRowRedactor(
  lib: Library,
  seq: number,
): ((table: string, row: Record<string, unknown>) => Record<string, unknown>) | null {
  const redactions = textRedactionsOf(lib, seq);
  const redactor = textRedactor(redactions);
  const logOnly = editLogOnlyRedactions(lib, seq);
  const logRedactor = logOnly.length ? textRedactor([...redactions, ...logOnly]) : redactor;
  if (!redactor.isActive && !logRedactor.isActive) {
    return null;
  }
  const original = redactor.isActive ? readEvents(lib.db, seq) : [];
  const redacted = redactor.events(original);
  const changed = new Map<number, (typeof redacted)[number]>();
  redacted.forEach((e, i) => {
    if (e !== original[i]) {
      changed.set(e.idx, e);
    }
  });
  return (table, row) => {
    const r = table === 'edits' ? logRedactor : redactor;
    if (!r.isActive) {
      return row;
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(row)) {
      out[k] = typeof v === 'string' ? redactColumn(r, v) : v;
    }
    const e = table === 'events' && typeof row.idx === 'number' ? changed.get(row.idx) : undefined;
    if (e) {
      Object.assign(out, {
        key: e.key,
        char: e.char,
        key_raw: e.keyRaw,
        keycode: e.keycode,
        flags: e.flags,
      });
    }
    return out;
  };
}

/** A finding with its matched text (what a `redact-text` edit stores). */
type Matched = { finding: PiiFinding; text: string };

/** The recording's findings with their matched texts (the scan, excerpts left unmasked). */
function matchedFindings(lib: Library, idOrPrefix: string): Matched[] {
  const { findings } = scanRecording(lib, idOrPrefix, {
    maskExcerpt: (_text, match) => match.text,
  });
  return findings.map((f) => ({ finding: f, text: f.excerpt }));
}

/** Finding ids the active log resolves: redacted (`redact-text`) or accepted (`pii-accept`). */
export function resolvedFindingIds(lib: Library, seq: number): Set<string> {
  const ids = new Set<string>();
  for (const e of listEdits(lib.db, seq, ['active'])) {
    const edit = e.edit as { op: string; findingId?: unknown };
    if (
      (edit.op === 'redact-text' || edit.op === 'pii-accept') &&
      typeof edit.findingId === 'string'
    ) {
      ids.add(edit.findingId);
    }
  }
  return ids;
}

/** One text redaction made. */
export type RedactedFinding = {
  findingId: string;
  kind: PiiKind;
  source: PiiFinding['source'];
  stepIndex: number | null;
  placeholder: string;
  editId: number;
};

function redactOne(
  lib: Library,
  id: string,
  m: Matched,
  options: ApplyEditOptions,
): RedactedFinding {
  const stored: StoredEdit = applyEdit(
    lib,
    id,
    { op: 'redact-text', findingId: m.finding.id, text: m.text, kind: m.finding.kind },
    options,
  );
  return {
    findingId: m.finding.id,
    kind: m.finding.kind,
    source: m.finding.source,
    stepIndex: m.finding.stepIndex,
    placeholder: PII_PLACEHOLDERS[m.finding.kind],
    editId: stored.id,
  };
}

/** Redacts the findings `findingIds` of a recording (NOT_FOUND names an unknown id; one already
 * redacted is not redacted twice). */
export function redactFindings(
  lib: Library,
  idOrPrefix: string,
  findingIds: readonly string[],
  options: ApplyEditOptions = {},
): RedactedFinding[] {
  const { seq, id } = resolveRecordingSeq(lib.db, idOrPrefix);
  const matched = matchedFindings(lib, id);
  const wanted = matched.filter((m) => findingIds.includes(m.finding.id));
  const missing = findingIds.filter((f) => !matched.some((m) => m.finding.id === f));
  if (missing.length) {
    throw new AppError(
      'NOT_FOUND',
      `Recording ${id} has no finding ${missing.join(', ')}.`,
      { id, findingIds: missing },
      `List its findings with \`cua-annotator scan ${id}\` (--json shows the ids).`,
    );
  }
  const redacted = new Set(
    listEdits(lib.db, seq, ['active']).flatMap((e) =>
      e.edit.op === 'redact-text' ? [e.edit.findingId] : [],
    ),
  );
  return wanted
    .filter((m) => !redacted.has(m.finding.id))
    .map((m) => redactOne(lib, id, m, options));
}

/** Redacts every unresolved finding of a recording (neither redacted nor accepted). */
export function redactAllFindings(
  lib: Library,
  idOrPrefix: string,
  options: ApplyEditOptions = {},
): RedactedFinding[] {
  const { seq, id } = resolveRecordingSeq(lib.db, idOrPrefix);
  const resolved = resolvedFindingIds(lib, seq);
  return matchedFindings(lib, id)
    .filter((m) => !resolved.has(m.finding.id))
    .map((m) => redactOne(lib, id, m, options));
}
