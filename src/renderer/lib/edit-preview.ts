// Optimistic preview of an edit: the recording as it will look once the service has applied the
// edit, so the UI answers at once. The service's answer replaces the preview (it is the truth:
// ids of split/inserted steps, merged labels and codes come from there).
import type { RecordingDto, StepDto, StepEdit } from '../../shared/contract';
import type { ActionCall } from '../../shared/domain';
import { splitCalls, splitStepLabels, stepKindOfCalls, writtenTextOf } from '../../shared/domain';
import { assertNever } from '../../shared/assert';
import { callsPreview } from './code-preview';
import { callArg, pyStringOf } from './py-value';

/** Prefix of step ids the preview invents (replaced by the service's ids). */
export const PENDING_ID_PREFIX = 'pending:';

function reindex(steps: StepDto[]): StepDto[] {
  return steps.map((s, index) => (s.index === index ? s : { ...s, index }));
}

function withCalls(step: StepDto, calls: ActionCall[]): StepDto {
  return {
    ...step,
    calls,
    code: callsPreview(calls),
    kind: stepKindOfCalls(calls),
    isEdited: true,
  };
}

function syntheticStep(id: string, after: StepDto | undefined, calls: ActionCall[]): StepDto {
  const t = after?.endMs ?? 0;
  return {
    id,
    index: 0,
    kind: stepKindOfCalls(calls),
    label: '',
    description: '',
    calls,
    code: callsPreview(calls),
    startMs: t,
    endMs: t,
    coordinate: null,
    preMove: null,
    keyframeMs: after?.keyframeMs ?? null,
    keyframeUrl: after?.keyframeUrl ?? null,
    element: null,
    windowTitle: after?.windowTitle ?? null,
    mark: null,
    isEdited: true,
    diagnostics: [],
    overlay: {},
  };
}

// The write message of a typing step (its write calls joined), or null.
export function typedText(step: Pick<StepDto, 'calls'>): string | null {
  const writes = step.calls.filter((c) => c.name === 'write');
  if (writes.length === 0) {
    return null;
  }
  return writes.map((c) => pyStringOf(callArg(c, 'message', 0)) ?? '').join('');
}

// True when `at` splits the step's typed text into two non-empty parts.
export function canSplitAt(step: Pick<StepDto, 'calls'>, at: number): boolean {
  const text = typedText(step);
  return text !== null && Number.isInteger(at) && at > 0 && at < [...text].length;
}

// The steps after applying one edit (pure; unknown step ids leave the steps unchanged).
export function previewSteps(steps: readonly StepDto[], edit: StepEdit, seq = 0): StepDto[] {
  const list = [...steps];
  const at = (id: string) => list.findIndex((s) => s.id === id);
  switch (edit.op) {
    case 'relabel': {
      const i = at(edit.stepId);
      const s = list[i];
      if (s) {
        list[i] = { ...s, label: edit.label, isEdited: true };
      }
      return list;
    }
    case 'mark': {
      const i = at(edit.stepId);
      const s = list[i];
      if (s) {
        list[i] = { ...s, mark: edit.mark };
      }
      return list;
    }
    case 'set-action': {
      const i = at(edit.stepId);
      const s = list[i];
      if (s) {
        list[i] = withCalls(s, edit.calls);
      }
      return list;
    }
    case 'delete': {
      const i = at(edit.stepId);
      if (i >= 0) {
        list.splice(i, 1);
      }
      return reindex(list);
    }
    case 'merge': {
      const i = at(edit.stepIds[0]);
      const j = at(edit.stepIds[1]);
      const a = list[i];
      const b = list[j];
      if (!a || !b || j !== i + 1) {
        return list;
      }
      const merged = withCalls(a, [...a.calls, ...b.calls]);
      list.splice(i, 2, {
        ...merged,
        label: [a.label, b.label].filter((l) => l.trim() !== '').join(' '),
        startMs: Math.min(a.startMs, b.startMs),
        endMs: Math.max(a.endMs, b.endMs),
      });
      return reindex(list);
    }
    case 'split': {
      const i = at(edit.stepId);
      const s = list[i];
      const text = s ? typedText(s) : null;
      if (!s || text === null || !canSplitAt(s, edit.at)) {
        return list;
      }
      // the service's halves and labels (a label it knows the reviewer wrote stays on both)
      const [firstCalls, secondCalls] = splitCalls(s.calls, edit.at);
      const [firstLabel, secondLabel] = splitStepLabels(s.label, writtenTextOf(s.calls), [
        writtenTextOf(firstCalls),
        writtenTextOf(secondCalls),
      ]);
      const first = { ...withCalls(s, firstCalls), label: firstLabel };
      const second: StepDto = {
        ...withCalls(s, secondCalls),
        id: `${PENDING_ID_PREFIX}split:${seq}`,
        label: secondLabel,
        mark: null,
      };
      list.splice(i, 1, first, second);
      return reindex(list);
    }
    case 'insert': {
      const i = edit.afterStepId === null ? -1 : at(edit.afterStepId);
      if (edit.afterStepId !== null && i < 0) {
        return list;
      }
      const calls: ActionCall[] =
        edit.kind === 'wait'
          ? [{ name: 'wait', args: {} }]
          : [{ name: 'terminate', args: { status: edit.status ?? 'success' } }];
      list.splice(i + 1, 0, syntheticStep(`${PENDING_ID_PREFIX}insert:${seq}`, list[i], calls));
      return reindex(list);
    }
    case 'trim': {
      const { startMs, endMs } = edit;
      return reindex(
        list.filter(
          (s) =>
            (startMs === null || s.startMs >= startMs) && (endMs === null || s.startMs <= endMs),
        ),
      );
    }
    case 'redact-box':
      return list; // pixels only: the steps do not change
    case 'pii-accept':
      return list; // a review decision: the steps do not change
    case 'redact-text':
      return list; // applied on export: the steps do not change
    default:
      return assertNever(edit, 'edit op');
  }
}

// The recording after applying one edit (pure).
export function previewEdit(rec: RecordingDto, edit: StepEdit, seq = 0): RecordingDto {
  const steps = previewSteps(rec.steps, edit, seq);
  return {
    ...rec,
    steps,
    trim: edit.op === 'trim' ? { startMs: edit.startMs, endMs: edit.endMs } : rec.trim,
    canUndo: true,
    canRedo: false,
  };
}

// The step to select after `removedId` disappeared: the one now at its index, else the last.
export function neighbourAfterRemoval(
  before: readonly StepDto[],
  after: readonly StepDto[],
  removedId: string,
): string | null {
  const i = before.findIndex((s) => s.id === removedId);
  if (after.length === 0) {
    return null;
  }
  const s = after[Math.min(Math.max(0, i), after.length - 1)];
  return s ? s.id : null;
}
