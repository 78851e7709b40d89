// The edit service's answer to one edit, for store tests: the recording's steps go through the
// service's own `applyEdits` (services/edits/apply-edits.ts), not the page's optimistic preview,
// so a store test sees what the service would store and the preview cannot drift from it
// unnoticed (issue 26 item 16).
import type { RecordingDto, StepDto, StepEdit, StoredEdit } from '../../../src/shared/contract';
import type { Step } from '../../../src/shared/domain';
import { callsToCode } from '../../../src/pipeline/code';
import { applyEdits } from '../../../src/services/edits/apply-edits';

/** An edit the service refused: its code and message, as `EDIT_INVALID` says them. */
export class ServiceRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function stepOf(dto: StepDto): Step {
  return {
    id: dto.id,
    index: dto.index,
    kind: dto.kind,
    description: dto.description,
    label: dto.label,
    calls: dto.calls,
    startMs: dto.startMs,
    endMs: dto.endMs,
    eventStartIdx: null,
    coordinate: dto.coordinate,
    preMove: dto.preMove,
    target: null,
    extra: {},
    diagnostics: dto.diagnostics,
  };
}

function isSameAction(old: StepDto, step: Step): boolean {
  return (
    old.startMs === step.startMs &&
    old.endMs === step.endMs &&
    JSON.stringify(old.calls) === JSON.stringify(step.calls)
  );
}

/**
 * `rec` after the service applied `edit` (stored with id `editId`, which names a split's second
 * half `edit:<editId>`). Marks already on the steps are carried as earlier mark edits. Throws
 * {@link ServiceRefusal} when the service would refuse the edit.
 */
export function serviceEdit(rec: RecordingDto, edit: StepEdit, editId: number): RecordingDto {
  const marks: StoredEdit[] = rec.steps
    .filter((s) => s.mark !== null)
    .map((s, i) => ({
      id: i - rec.steps.length,
      atMs: 0,
      author: null,
      state: 'active',
      edit: { op: 'mark', stepId: s.id, mark: s.mark },
    }));
  const applied = applyEdits(
    rec.steps.map(stepOf),
    [...marks, { id: editId, atMs: 0, author: null, state: 'active', edit }],
    { screen: { width: rec.screen.width, height: rec.screen.height } },
  );
  const refused = applied.skipped.find((s) => s.editId === editId);
  if (refused) {
    throw new ServiceRefusal('EDIT_INVALID', refused.message);
  }
  const before = new Map(rec.steps.map((s) => [s.id, s]));
  const steps = applied.steps.map((step): StepDto => {
    const old = before.get(step.id);
    const from = (step.extra.edit as { from?: string[] } | undefined)?.from?.[0];
    const origin = old ?? (from === undefined ? undefined : before.get(from));
    return {
      ...(origin ?? {
        element: null,
        windowTitle: null,
        overlay: {},
      }),
      id: step.id,
      index: step.index,
      kind: step.kind,
      label: step.label,
      description: step.description,
      calls: step.calls,
      code: step.calls.length ? callsToCode(step.calls) : '',
      startMs: step.startMs,
      endMs: step.endMs,
      coordinate: step.coordinate,
      preMove: step.preMove,
      // a new or changed step has no keyframe until the background job computes it
      keyframeMs: old && isSameAction(old, step) ? old.keyframeMs : null,
      keyframeUrl: old && isSameAction(old, step) ? old.keyframeUrl : null,
      mark: applied.marks.get(step.id) ?? null,
      isEdited: (old?.isEdited ?? false) || applied.editedIds.has(step.id),
      diagnostics: step.diagnostics,
    };
  });
  return {
    ...rec,
    steps,
    trim: edit.op === 'trim' ? { startMs: edit.startMs, endMs: edit.endMs } : rec.trim,
  };
}
