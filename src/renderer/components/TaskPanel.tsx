// The task instruction and description of a recording (changes autosave).

/** Props of {@link TaskPanel}. */
export type TaskPanelProps = {
  task: string;
  description: string;
  onChange: (patch: { task?: string; description?: string }) => void;
  /** Sends typed text now (field left). */
  onFlush: () => void;
};

// The task form.
export function TaskPanel({ task, description, onChange, onFlush }: TaskPanelProps) {
  return (
    <div className="panel-section task-panel">
      <label className="field">
        <span className="field-label">Task instruction</span>
        <textarea
          className="input"
          rows={4}
          value={task}
          onChange={(e) => onChange({ task: e.target.value })}
          onBlur={onFlush}
          data-testid="task-input"
        />
      </label>
      <label className="field">
        <span className="field-label">Description</span>
        <textarea
          className="input"
          rows={3}
          value={description}
          placeholder="Context, preconditions, anything a reviewer should know"
          onChange={(e) => onChange({ description: e.target.value })}
          onBlur={onFlush}
        />
      </label>
    </div>
  );
}
