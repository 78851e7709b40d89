// Structured action editor: a kind and its parameters, validated as you type; Save is only
// possible for a valid draft, so only well-formed ActionCalls ever leave it. Points are set by
// clicking the keyframe (the page routes those clicks here) or typed as normalised x/y.
import { useState } from 'react';
import { TERMINATE_STATUSES, type ActionCall } from '../../shared/domain';
import {
  DRAG_BUTTONS,
  EDITABLE_KINDS,
  KIND_LABELS,
  KNOWN_KEY_NAMES,
  draftFromCalls,
  draftToCalls,
  kindTakesPoint,
  parseKeysText,
  validateDraft,
  type ActionDraft,
  type EditableKind,
  type NormPoint,
  type PointTarget,
} from '../lib/action-draft';
import { callsPreview } from '../lib/code-preview';
import { round4 } from '../lib/overlay';

/** Props of {@link ActionEditor}. */
export type ActionEditorProps = {
  draft: ActionDraft;
  /** The step's current calls (Save stays off while the draft would not change them). */
  original: readonly ActionCall[];
  onChange: (draft: ActionDraft) => void;
  /** Which point the next keyframe click sets. */
  pickTarget: PointTarget;
  onPickTarget: (target: PointTarget) => void;
  onSave: (calls: ActionCall[]) => void;
  onCancel: () => void;
};

const KEY_LIST_ID = 'known-key-names';

function PointFields({
  label,
  point,
  isPicking,
  onPick,
  onChange,
  isOptional,
}: {
  label: string;
  point: NormPoint | null;
  isPicking: boolean;
  onPick: () => void;
  onChange: (p: NormPoint | null) => void;
  isOptional?: boolean;
}) {
  const set = (axis: 'x' | 'y', text: string) => {
    const v = Number(text);
    const base = point ?? { x: 0.5, y: 0.5 };
    onChange({ ...base, [axis]: text === '' || !Number.isFinite(v) ? Number.NaN : v });
  };
  return (
    <div className={`point-fields${isPicking ? ' is-picking' : ''}`}>
      <span className="field-label">{label}</span>
      <label>
        x
        <input
          type="number"
          className="input input-small mono"
          min={0}
          max={1}
          step={0.0001}
          value={point && Number.isFinite(point.x) ? round4(point.x) : ''}
          onChange={(e) => set('x', e.target.value)}
          aria-label={`${label} x (0–1)`}
        />
      </label>
      <label>
        y
        <input
          type="number"
          className="input input-small mono"
          min={0}
          max={1}
          step={0.0001}
          value={point && Number.isFinite(point.y) ? round4(point.y) : ''}
          onChange={(e) => set('y', e.target.value)}
          aria-label={`${label} y (0–1)`}
        />
      </label>
      <button
        type="button"
        className={`btn btn-small${isPicking ? ' is-active' : ''}`}
        aria-pressed={isPicking}
        onClick={onPick}
        title="Then click on the keyframe"
      >
        Pick
      </button>
      {isOptional && point && (
        <button type="button" className="btn btn-ghost btn-small" onClick={() => onChange(null)}>
          None
        </button>
      )}
    </div>
  );
}

// The action editor form.
export function ActionEditor({
  draft,
  original,
  onChange,
  pickTarget,
  onPickTarget,
  onSave,
  onCancel,
}: ActionEditorProps) {
  const [keyText, setKeyText] = useState('');
  const errors = validateDraft(draft);
  const calls = draftToCalls(draft);
  const errorList = Object.values(errors);
  const isUnchanged = calls !== null && JSON.stringify(calls) === JSON.stringify(original);
  // steps like write + press hold more than one action; the editor writes exactly one
  const [isLossy] = useState(
    () => JSON.stringify(draftToCalls(draftFromCalls(original))) !== JSON.stringify(original),
  );

  const addKeys = () => {
    const keys = parseKeysText(keyText);
    if (keys.length > 0) {
      onChange({ ...draft, keys: [...draft.keys, ...keys] });
      setKeyText('');
    }
  };

  return (
    <form
      className="action-editor"
      data-testid="action-editor"
      onSubmit={(e) => {
        e.preventDefault();
        if (calls && !isUnchanged) {
          onSave(calls);
        }
      }}
    >
      <label className="field-inline">
        <span>Action</span>
        <select
          className="input"
          value={draft.kind}
          onChange={(e) => onChange({ ...draft, kind: e.target.value as EditableKind })}
          data-testid="action-kind"
        >
          {EDITABLE_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k]}
            </option>
          ))}
        </select>
      </label>

      {kindTakesPoint(draft.kind) && draft.kind !== 'dragTo' && (
        <PointFields
          label={draft.kind === 'scroll' ? 'Position' : 'Point'}
          point={draft.point}
          isPicking={pickTarget === 'point'}
          onPick={() => onPickTarget('point')}
          onChange={(point) => onChange({ ...draft, point })}
          isOptional={draft.kind === 'scroll'}
        />
      )}
      {draft.kind === 'dragTo' && (
        <>
          <PointFields
            label="From"
            point={draft.point}
            isPicking={pickTarget === 'point'}
            onPick={() => onPickTarget('point')}
            onChange={(point) => onChange({ ...draft, point })}
          />
          <PointFields
            label="To"
            point={draft.point2}
            isPicking={pickTarget === 'point2'}
            onPick={() => onPickTarget('point2')}
            onChange={(point2) => onChange({ ...draft, point2 })}
          />
          <label className="field-inline">
            <span>Button</span>
            <select
              className="input input-small"
              value={draft.button}
              onChange={(e) =>
                onChange({ ...draft, button: e.target.value as ActionDraft['button'] })
              }
            >
              {DRAG_BUTTONS.map((b) => (
                <option key={b} value={b}>
                  {b}
                </option>
              ))}
            </select>
          </label>
        </>
      )}
      {draft.kind === 'scroll' && (
        <div className="scroll-fields">
          <label className="field-inline">
            <span>Vertical notches (+ up, − down)</span>
            <input
              type="number"
              className="input input-small mono"
              step={1}
              value={draft.clicks}
              onChange={(e) => onChange({ ...draft, clicks: Number(e.target.value) })}
            />
          </label>
          <label className="field-inline">
            <span>Horizontal notches (+ right, − left)</span>
            <input
              type="number"
              className="input input-small mono"
              step={1}
              value={draft.hclicks}
              onChange={(e) => onChange({ ...draft, hclicks: Number(e.target.value) })}
            />
          </label>
        </div>
      )}
      {draft.kind === 'write' && (
        <label className="field">
          <span className="field-label">Text typed</span>
          <textarea
            className="input mono"
            rows={2}
            value={draft.message}
            onChange={(e) => onChange({ ...draft, message: e.target.value })}
          />
        </label>
      )}
      {(draft.kind === 'press' || draft.kind === 'hotkey') && (
        <div className="field">
          <span className="field-label">
            {draft.kind === 'hotkey' ? 'Keys held together' : 'Keys pressed in turn'}
          </span>
          <div className="key-chips">
            {draft.keys.map((k, i) => (
              <span key={`${k}-${i}`} className="key-chip">
                <kbd>{k}</kbd>
                <button
                  type="button"
                  className="chip-remove"
                  aria-label={`Remove ${k}`}
                  onClick={() => onChange({ ...draft, keys: draft.keys.filter((_, j) => j !== i) })}
                >
                  ×
                </button>
              </span>
            ))}
            <input
              type="text"
              className="input input-small mono"
              list={KEY_LIST_ID}
              placeholder="ctrl+c, enter…"
              value={keyText}
              onChange={(e) => setKeyText(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  addKeys();
                }
              }}
              onBlur={addKeys}
              aria-label="Add keys"
            />
            <datalist id={KEY_LIST_ID}>
              {[...KNOWN_KEY_NAMES].map((k) => (
                <option key={k} value={k} />
              ))}
            </datalist>
          </div>
        </div>
      )}
      {draft.kind === 'terminate' && (
        <div className="segmented" role="radiogroup" aria-label="Outcome">
          {TERMINATE_STATUSES.map((st) => (
            <label key={st} className={draft.status === st ? 'is-active' : ''}>
              <input
                type="radio"
                name="terminate-status"
                checked={draft.status === st}
                onChange={() => onChange({ ...draft, status: st })}
              />
              {st}
            </label>
          ))}
        </div>
      )}

      {isLossy && (
        <p className="notice notice-warn editor-note">
          This step holds several actions; saving replaces all of them with the one above.
        </p>
      )}
      <pre className="code-block code-preview" aria-label="Code preview">
        {calls ? callsPreview(calls) || '(no calls)' : '…'}
      </pre>
      {errorList.length > 0 && (
        <ul className="form-errors" role="alert">
          {errorList.map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      )}
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={!calls || isUnchanged}
          title={isUnchanged ? 'Nothing changed yet' : undefined}
          data-testid="action-save"
        >
          Save action
        </button>
      </div>
    </form>
  );
}
