// CoT rows (migration 0006, docs/cot.md §5): one per finished trajectory step, one summary per
// recording. Each save is one statement, so a step is either stored whole or not at all.
import type { Db } from '../db';

/** Where a stored step's correctness came from. */
export type CotVerdictSource = 'model' | 'reviewer' | 'final-step';

/** One stored CoT step. */
export type StoredCotStep = {
  /** Trajectory index (0-based, terminate last). */
  index: number;
  inputSha256: string;
  code: string;
  observation: string;
  thought: string;
  action: string;
  lastStepCorrect: boolean;
  lastStepRedundant: boolean;
  reflection: string;
  verdictSource: CotVerdictSource;
  model: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** When a person last edited its texts (epoch ms); null when as the model wrote it. */
  editedAtMs: number | null;
  createdAtMs: number;
};

/** A recording's stored CoT summary. */
export type StoredCotSummary = {
  inputSha256: string;
  /** The summarizer's JSON object (task_completed, alignment_score, …), every key. */
  fields: Record<string, unknown>;
  model: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  editedAtMs: number | null;
  createdAtMs: number;
};

type StepRow = {
  idx: number;
  input_sha256: string;
  code: string;
  observation: string;
  thought: string;
  action: string;
  last_step_correct: number;
  last_step_redundant: number;
  reflection: string;
  verdict_source: CotVerdictSource;
  model: string;
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  edited_at_ms: number | null;
  created_at_ms: number;
};

const stepOf = (r: StepRow): StoredCotStep => ({
  index: r.idx,
  inputSha256: r.input_sha256,
  code: r.code,
  observation: r.observation,
  thought: r.thought,
  action: r.action,
  lastStepCorrect: r.last_step_correct !== 0,
  lastStepRedundant: r.last_step_redundant !== 0,
  reflection: r.reflection,
  verdictSource: r.verdict_source,
  model: r.model,
  calls: r.calls,
  promptTokens: r.prompt_tokens,
  completionTokens: r.completion_tokens,
  editedAtMs: r.edited_at_ms,
  createdAtMs: r.created_at_ms,
});

/** A recording's stored CoT steps, by trajectory index. */
export function listCotSteps(db: Db, recordingSeq: number): StoredCotStep[] {
  const rows = db
    .prepare(`SELECT * FROM cot_steps WHERE recording_seq = ? ORDER BY idx`)
    .all(recordingSeq) as StepRow[];
  return rows.map(stepOf);
}

/** Stores (or replaces) one finished step. */
export function saveCotStep(db: Db, recordingSeq: number, s: StoredCotStep): void {
  db.prepare(
    `INSERT OR REPLACE INTO cot_steps (recording_seq, idx, input_sha256, code, observation,
       thought, action, last_step_correct, last_step_redundant, reflection, verdict_source, model,
       calls, prompt_tokens, completion_tokens, edited_at_ms, created_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    recordingSeq,
    s.index,
    s.inputSha256,
    s.code,
    s.observation,
    s.thought,
    s.action,
    s.lastStepCorrect ? 1 : 0,
    s.lastStepRedundant ? 1 : 0,
    s.reflection,
    s.verdictSource,
    s.model,
    s.calls,
    s.promptTokens,
    s.completionTokens,
    s.editedAtMs,
    s.createdAtMs,
  );
}

/** Removes the steps at and after trajectory index `fromIndex` (the trajectory got shorter). */
export function deleteCotStepsFrom(db: Db, recordingSeq: number, fromIndex: number): number {
  return db
    .prepare(`DELETE FROM cot_steps WHERE recording_seq = ? AND idx >= ?`)
    .run(recordingSeq, fromIndex).changes;
}

/** The texts a person may edit in a stored step. */
export type CotStepTexts = Partial<
  Pick<StoredCotStep, 'observation' | 'thought' | 'action' | 'reflection'>
>;

/** Edits a stored step's texts; false when there is no such step. */
export function editCotStep(
  db: Db,
  recordingSeq: number,
  index: number,
  texts: CotStepTexts,
  nowMs: number,
): boolean {
  return (
    db
      .prepare(
        `UPDATE cot_steps SET observation = COALESCE(?, observation),
           thought = COALESCE(?, thought), action = COALESCE(?, action),
           reflection = COALESCE(?, reflection), edited_at_ms = ?
         WHERE recording_seq = ? AND idx = ?`,
      )
      .run(
        texts.observation ?? null,
        texts.thought ?? null,
        texts.action ?? null,
        texts.reflection ?? null,
        nowMs,
        recordingSeq,
        index,
      ).changes > 0
  );
}

type SummaryRow = {
  input_sha256: string;
  fields_json: string;
  model: string;
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  edited_at_ms: number | null;
  created_at_ms: number;
};

/** A recording's stored summary, or null. */
export function getCotSummary(db: Db, recordingSeq: number): StoredCotSummary | null {
  const r = db.prepare(`SELECT * FROM cot_summaries WHERE recording_seq = ?`).get(recordingSeq) as
    SummaryRow | undefined;
  return r
    ? {
        inputSha256: r.input_sha256,
        fields: JSON.parse(r.fields_json) as Record<string, unknown>,
        model: r.model,
        calls: r.calls,
        promptTokens: r.prompt_tokens,
        completionTokens: r.completion_tokens,
        editedAtMs: r.edited_at_ms,
        createdAtMs: r.created_at_ms,
      }
    : null;
}

/** Stores (or replaces) a recording's summary. */
export function saveCotSummary(db: Db, recordingSeq: number, s: StoredCotSummary): void {
  db.prepare(
    `INSERT OR REPLACE INTO cot_summaries (recording_seq, input_sha256, fields_json, model, calls,
       prompt_tokens, completion_tokens, edited_at_ms, created_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    recordingSeq,
    s.inputSha256,
    JSON.stringify(s.fields),
    s.model,
    s.calls,
    s.promptTokens,
    s.completionTokens,
    s.editedAtMs,
    s.createdAtMs,
  );
}

/** Replaces some keys of a stored summary's fields (a person's edit); false when none stored. */
export function editCotSummary(
  db: Db,
  recordingSeq: number,
  fields: Record<string, unknown>,
  nowMs: number,
): boolean {
  const current = getCotSummary(db, recordingSeq);
  if (!current) {
    return false;
  }
  db.prepare(
    `UPDATE cot_summaries SET fields_json = ?, edited_at_ms = ? WHERE recording_seq = ?`,
  ).run(JSON.stringify({ ...current.fields, ...fields }), nowMs, recordingSeq);
  return true;
}

/** Forgets a recording's CoT (every step and the summary): the next run asks for all of it. */
export function deleteCot(db: Db, recordingSeq: number): void {
  db.prepare(`DELETE FROM cot_steps WHERE recording_seq = ?`).run(recordingSeq);
  db.prepare(`DELETE FROM cot_summaries WHERE recording_seq = ?`).run(recordingSeq);
}
