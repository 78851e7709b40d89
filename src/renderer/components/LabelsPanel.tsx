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
              value={value ?? 5}
              className={value === null ? 'is-unset' : ''}
              aria-label={`${s.label} (0–10)`}
              onChange={(e) => onChange({ ...labels, [s.key]: Number(e.target.value) })}
            />
            <span className="score-value mono">{value ?? '–'}</span>
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
