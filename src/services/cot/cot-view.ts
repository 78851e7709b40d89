// The review page's CoT (docs/cot.md §9): the stored rows with what is stale (their fingerprint no
// longer matches the recording), and people's edits of the texts and the summary.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ApiMethods, CotSummaryDto, CotViewDto } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { editCotStep, editCotSummary, getCotSummary, listCotSteps } from '../../store';
import type { Library } from '../library/library';
import { guardAcceptedEdit } from '../review/review-lock';
import { readCotInputs } from './cot-inputs';

const num = (v: unknown) => (Number.isSafeInteger(v) ? (v as number) : null);
const str = (v: unknown) => (typeof v === 'string' ? v : null);

/** Recording `id`'s stored CoT with staleness. */
export async function getCotView(lib: Library, id: string): Promise<CotViewDto> {
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cua-cot-view-'));
  try {
    const inputs = await readCotInputs(lib, id, { workDir, isVerified: true });
    const seq = inputs.loaded.rec.seq;
    let isChainStale = false;
    const steps = listCotSteps(lib.db, seq)
      .filter((r) => r.index < inputs.steps.length)
      .map((r) => {
        isChainStale ||= r.inputSha256 !== inputs.steps[r.index]!.inputSha256;
        const t = inputs.trajectory[r.index]!;
        return {
          index: r.index,
          stepId: inputs.loaded.steps[t.imageIndex]?.id ?? null,
          code: r.code,
          observation: r.observation,
          thought: r.thought,
          action: r.action,
          lastStepCorrect: r.lastStepCorrect,
          lastStepRedundant: r.lastStepRedundant,
          reflection: r.reflection,
          verdictSource: r.verdictSource,
          isStale: isChainStale,
          isEdited: r.editedAtMs !== null,
          model: r.model,
        };
      });
    const s = getCotSummary(lib.db, seq);
    const summary: CotSummaryDto | null = s
      ? {
          taskCompleted:
            typeof s.fields.task_completed === 'boolean' ? s.fields.task_completed : null,
          alignmentScore: num(s.fields.alignment_score),
          efficiencyScore: num(s.fields.efficiency_score),
          taskDifficulty: num(s.fields.task_difficulty),
          reason: str(s.fields.reason),
          actualTask: str(s.fields.actual_task),
          naturalLanguageTask: str(s.fields.natural_language_task),
          isStale: s.inputSha256 !== inputs.summaryInputSha256,
          isEdited: s.editedAtMs !== null,
          model: s.model,
        }
      : null;
    return { recordingId: inputs.loaded.rec.id, totalSteps: inputs.steps.length, steps, summary };
  } finally {
    await fs.rm(workDir, { recursive: true, force: true });
  }
}

const notStored = (id: string, what: string) =>
  new AppError(
    'NOT_FOUND',
    `Recording ${id} has no stored CoT ${what}.`,
    undefined,
    `Run \`cua-annotator cot ${id} --model NAME\` first.`,
  );

/** Edits a stored step's texts; NOT_FOUND when the step has no CoT. */
export async function editCotStepTexts(
  lib: Library,
  seq: number,
  input: ApiMethods['cot:edit-step']['input'],
): Promise<CotViewDto> {
  const { id, index, force, ...texts } = input;
  const nowMs = Date.now();
  lib.db.transaction(() => {
    // an accepted recording is locked against edits unless `force` (review-lock.ts)
    guardAcceptedEdit(lib, id, 'editing its reasoning', { force, nowMs });
    if (!editCotStep(lib.db, seq, index, texts, nowMs)) {
      throw notStored(id, `for step ${index}`);
    }
  })();
  return getCotView(lib, id);
}

/** Edits the stored summary; NOT_FOUND when there is none. */
export async function editCotSummaryFields(
  lib: Library,
  seq: number,
  input: ApiMethods['cot:edit-summary']['input'],
): Promise<CotViewDto> {
  const fields: Record<string, unknown> = {};
  const keys = {
    taskCompleted: 'task_completed',
    alignmentScore: 'alignment_score',
    efficiencyScore: 'efficiency_score',
    taskDifficulty: 'task_difficulty',
    reason: 'reason',
    actualTask: 'actual_task',
    naturalLanguageTask: 'natural_language_task',
  } as const;
  for (const [key, name] of Object.entries(keys) as [keyof typeof keys, string][]) {
    if (input[key] !== undefined) {
      fields[name] = input[key];
    }
  }
  const nowMs = Date.now();
  lib.db.transaction(() => {
    guardAcceptedEdit(lib, input.id, 'editing its reasoning', { force: input.force, nowMs });
    if (!editCotSummary(lib.db, seq, fields, nowMs)) {
      throw notStored(input.id, 'summary');
    }
  })();
  return getCotView(lib, input.id);
}
