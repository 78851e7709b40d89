// The selected step in full: large keyframe with overlay, label, code, element and window, and
// every step edit (mark, action, merge, split, insert, delete).
import { useState } from 'react';
import type { RecordingDto, StepDto, StepEdit, StepMark } from '../../shared/contract';
import { TERMINATE_STATUSES } from '../../shared/domain';
import {
  draftFromCalls,
  draftOverlay,
  setDraftPoint,
  type ActionDraft,
  type PointTarget,
} from '../lib/action-draft';
import { canSplitAt, typedText } from '../lib/edit-preview';
import { stepOverlay } from '../lib/overlay';
import { formatClockSec, formatSpanMs, recordingOriginMs, stepVideoTimeSec } from '../lib/time';
import { ActionEditor } from './ActionEditor';
import { KeyframeOverlay } from './KeyframeOverlay';
import { elementText } from './StepCard';
import { KindChip } from './StatusChip';

/** Props of {@link StepDetail}. */
export type StepDetailProps = {
  recording: RecordingDto;
  step: StepDto;
  /** Label as shown in the field (draft while typing). */
  labelText: string;
  onLabelChange: (text: string) => void;
  /** Sends typed text now (field left). */
  onFlush: () => void;
  onEdit: (edit: StepEdit) => void;
};

const MARKS: { mark: StepMark; label: string; key: string }[] = [
  { mark: 'correct', label: '✓ Correct', key: 'correct' },
  { mark: 'incorrect', label: '✗ Incorrect', key: 'incorrect' },
  { mark: 'redundant', label: '≈ Redundant', key: 'redundant' },
];

function SplitPanel({
  step,
  onSplit,
  onClose,
}: {
  step: StepDto;
  onSplit: (at: number) => void;
  onClose: () => void;
}) {
  const text = typedText(step) ?? '';
  const chars = [...text];
  const [at, setAt] = useState(Math.max(1, Math.floor(chars.length / 2)));
  const isValid = canSplitAt(step, at);
  return (
    <div className="split-panel" data-testid="split-panel">
      <div className="field-label">Split the typed text after character {at}</div>
      <input
        type="range"
        min={1}
        max={Math.max(1, chars.length - 1)}
        value={at}
        onChange={(e) => setAt(Number(e.target.value))}
        aria-label="Split position"
      />
      <div className="split-preview mono">
        <span className="split-a">{chars.slice(0, at).join('')}</span>
        <span className="split-cursor" aria-hidden="true">
          |
        </span>
        <span className="split-b">{chars.slice(at).join('')}</span>
      </div>
      <p className="muted" data-testid="split-export-note">
        Every export keeps the two steps, each with its own text, label and image. OpenCUA&apos;s
        own conversion of an agentnet-raw folder joins typing steps in a row into one again.
      </p>
      <div className="form-actions">
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          className="btn btn-primary"
          disabled={!isValid}
          onClick={() => onSplit(at)}
        >
          Split into two steps
        </button>
      </div>
    </div>
  );
}

// Full view and editing tools of one step.
export function StepDetail({
  recording,
  step,
  labelText,
  onLabelChange,
  onFlush,
  onEdit,
}: StepDetailProps) {
  const [draft, setDraft] = useState<ActionDraft | null>(null);
  const [pickTarget, setPickTarget] = useState<PointTarget>('point');
  const [isSplitting, setSplitting] = useState(false);
  const steps = recording.steps;
  const next = steps[step.index + 1];
  // a terminate step can only go after the last step
  const last = steps[steps.length - 1];
  const hasTerminate = last?.kind === 'terminate';
  const image = {
    width: recording.video?.width ?? recording.screen.width,
    height: recording.video?.height ?? recording.screen.height,
  };
  const videoSec = stepVideoTimeSec(step, recording.video?.startMs ?? 0);
  const element = elementText(step.element);
  const text = typedText(step);
  const canSplit = text !== null && [...text].length >= 2;

  const onPick = (p: { x: number; y: number }) => {
    if (!draft) {
      return;
    }
    setDraft(setDraftPoint(draft, pickTarget, p));
    if (draft.kind === 'dragTo' && pickTarget === 'point') {
      // a drag is picked start then end
      setPickTarget('point2');
    }
  };

  return (
    <section
      className="step-detail"
      aria-label={`Step ${step.index + 1}`}
      data-testid="step-detail"
    >
      <header className="detail-head">
        <h2>
          Step {step.index + 1} <span className="muted">of {steps.length}</span>
        </h2>
        <KindChip kind={step.kind} />
        <span className="muted mono">{formatClockSec(videoSec)}</span>
        {step.isEdited && <span className="chip chip-edited">edited</span>}
        <div className="spacer" />
        <div className="segmented" role="group" aria-label="Mark step">
          {MARKS.map((m) => (
            <button
              key={m.key}
              type="button"
              className={`seg mark-${m.mark}${step.mark === m.mark ? ' is-active' : ''}`}
              aria-pressed={step.mark === m.mark}
              onClick={() =>
                onEdit({ op: 'mark', stepId: step.id, mark: step.mark === m.mark ? null : m.mark })
              }
            >
              {m.label}
            </button>
          ))}
        </div>
      </header>

      <div className="detail-grid">
        <div className="detail-visual">
          <KeyframeOverlay
            src={step.keyframeUrl}
            image={image}
            model={draft ? draftOverlay(draft) : stepOverlay(step, recording.screen)}
            onPick={draft ? onPick : undefined}
            alt={`Keyframe of step ${step.index + 1}`}
          />
          {draft && (
            <p className="hint">
              Click on the keyframe to set the {pickTarget === 'point2' ? 'drag end' : 'point'}.
            </p>
          )}
        </div>
        <div className="detail-info">
          <label className="field">
            <span className="field-label">Label (natural-language instruction)</span>
            <textarea
              className="input label-input"
              rows={3}
              value={labelText}
              placeholder="Describe what this step does, e.g. “Click on Display settings”"
              onChange={(e) => onLabelChange(e.target.value)}
              onBlur={onFlush}
              onKeyDown={(e) => {
                if (e.key === 'Escape' || (e.key === 'Enter' && (e.ctrlKey || e.metaKey))) {
                  e.currentTarget.blur();
                }
              }}
              data-testid="label-input"
            />
          </label>
          <div className="field">
            <span className="field-label">Code</span>
            <pre className="code-block" data-testid="step-code">
              {step.code || '—'}
            </pre>
          </div>
          <dl className="facts">
            <dt>Element</dt>
            <dd title={step.element?.map((e) => `${e.role} “${e.name}”`).join(' › ') ?? ''}>
              {element ?? '—'}
            </dd>
            <dt>Window</dt>
            <dd>{step.windowTitle ?? '—'}</dd>
            <dt>Span</dt>
            <dd className="mono">
              {formatSpanMs(step.startMs, step.endMs, recordingOriginMs(recording))}
            </dd>
            {step.diagnostics.length > 0 && (
              <>
                <dt>Notes</dt>
                <dd>
                  <ul className="diag-list">
                    {step.diagnostics.map((d) => (
                      <li key={d}>{d}</li>
                    ))}
                  </ul>
                </dd>
              </>
            )}
          </dl>
        </div>
      </div>

      <div className="step-tools" role="toolbar" aria-label="Step edits">
        <button
          type="button"
          className="btn"
          onClick={() => {
            setSplitting(false);
            setDraft(draft ? null : draftFromCalls(step.calls));
            setPickTarget('point');
          }}
          aria-expanded={draft !== null}
          data-testid="edit-action"
        >
          ✎ Edit action
        </button>
        <button
          type="button"
          className="btn"
          disabled={!next}
          onClick={() => next && onEdit({ op: 'merge', stepIds: [step.id, next.id] })}
          title={next ? `Merge with step ${next.index + 1}` : 'This is the last step'}
          data-testid="merge-next"
        >
          ⤓ Merge with next
        </button>
        <button
          type="button"
          className="btn"
          disabled={!canSplit}
          onClick={() => {
            setDraft(null);
            setSplitting(!isSplitting);
          }}
          title={
            canSplit ? 'Split the typed text into two steps' : 'Only typing steps can be split'
          }
          aria-expanded={isSplitting}
        >
          ✂ Split…
        </button>
        {step.index === 0 && (
          <button
            type="button"
            className="btn"
            onClick={() => onEdit({ op: 'insert', afterStepId: null, kind: 'wait' })}
          >
            + Wait before
          </button>
        )}
        <button
          type="button"
          className="btn"
          onClick={() => onEdit({ op: 'insert', afterStepId: step.id, kind: 'wait' })}
        >
          + Wait after
        </button>
        {TERMINATE_STATUSES.map((status) => (
          <button
            key={status}
            type="button"
            className="btn"
            disabled={!last || hasTerminate}
            title={
              hasTerminate
                ? 'The recording already ends with a terminate step'
                : `Append computer.terminate(status='${status}') after the last step`
            }
            onClick={() =>
              last && onEdit({ op: 'insert', afterStepId: last.id, kind: 'terminate', status })
            }
          >
            + End ({status})
          </button>
        ))}
        <div className="spacer" />
        <button
          type="button"
          className="btn btn-danger"
          onClick={() => onEdit({ op: 'delete', stepId: step.id })}
          title="Delete the step (Delete). Undo with Ctrl+Z."
          data-testid="delete-step"
        >
          Delete
        </button>
      </div>

      {isSplitting && (
        <SplitPanel
          step={step}
          onClose={() => setSplitting(false)}
          onSplit={(at) => {
            setSplitting(false);
            onEdit({ op: 'split', stepId: step.id, at });
          }}
        />
      )}
      {draft && (
        <ActionEditor
          draft={draft}
          original={step.calls}
          onChange={setDraft}
          pickTarget={pickTarget}
          onPickTarget={setPickTarget}
          onCancel={() => setDraft(null)}
          onSave={(calls) => {
            setDraft(null);
            onEdit({ op: 'set-action', stepId: step.id, calls });
          }}
        />
      )}
    </section>
  );
}
