// Task labels: completed, difficulty, alignment and efficiency (scores 0–10, each may be unset).
import type { TaskLabels } from '../../shared/contract';

/** Props of {@link LabelsPanel}. */
export type LabelsPanelProps = {
  labels: TaskLabels;
  onChange: (labels: TaskLabels) => void;
};

type ScoreKey = 'taskDifficulty' | 'alignmentScore' | 'efficiencyScore';

const SCORES: { key: ScoreKey; label: string; hint: string }[] = [
  { key: 'taskDifficulty', label: 'Difficulty', hint: '0 trivial … 10 very hard' },
  { key: 'alignmentScore', label: 'Alignment', hint: 'How well the steps follow the instruction' },
  { key: 'efficiencyScore', label: 'Efficiency', hint: '0 many detours … 10 no wasted step' },
];

/** Where an unset slider's (hidden) thumb rests; never shown as a value. */
const SCORE_PLACEHOLDER = 5;

// The task-labels form (changes autosave).
export function LabelsPanel({ labels, onChange }: LabelsPanelProps) {
  return (
    <div className="panel-section labels-panel" data-testid="labels-panel">
      <div className="field">
        <span className="field-label">Task completed</span>
        <div className="segmented" role="radiogroup" aria-label="Task completed">
          {(
            [
              [true, 'Yes'],
              [false, 'No'],
              [null, 'Unset'],
            ] as const
          ).map(([value, text]) => (
            <button
              key={text}
              type="button"
              role="radio"
              aria-checked={labels.taskCompleted === value}
              className={`seg${labels.taskCompleted === value ? ' is-active' : ''}`}
              onClick={() => onChange({ ...labels, taskCompleted: value })}
            >
              {text}
            </button>
          ))}
        </div>
      </div>
      {SCORES.map((s) => {
        const value = labels[s.key];
        return (
          <div className="field score-field" key={s.key}>
            <span className="field-label" title={s.hint}>
              {s.label}
            </span>
            <input
              type="range"
              min={0}
              max={10}
              step={1}
              value={value ?? SCORE_PLACEHOLDER}
              // unset: no thumb and no value shown until the user picks one (a click anywhere
              // on the track, also on the middle, or an arrow key sets it)
              className={value === null ? 'is-unset' : ''}
              aria-label={`${s.label} (0–10)`}
              aria-valuetext={value === null ? 'not set' : String(value)}
              data-testid={`score-${s.key}`}
              data-unset={value === null ? 'true' : undefined}
              onChange={(e) => onChange({ ...labels, [s.key]: Number(e.target.value) })}
              onPointerUp={(e) => {
                if (value === null) {
                  onChange({ ...labels, [s.key]: Number(e.currentTarget.value) });
                }
              }}
            />
            <span className={`score-value mono${value === null ? ' muted' : ''}`}>
              {value ?? 'not set'}
            </span>
            <button
              type="button"
              className="btn btn-ghost btn-small"
              disabled={value === null}
              aria-label={`Clear ${s.label}`}
              onClick={() => onChange({ ...labels, [s.key]: null })}
            >
              ×
            </button>
          </div>
        );
      })}
    </div>
  );
}
