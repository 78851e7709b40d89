// The selected step's reasoning from OpenCUA's CoT synthesis (docs/cot.md §9): observation,
// thought, action and reflection with the step's verdict, and the trajectory's summary; each text
// is editable like the other step fields (saved when the field is left changed).
import { useEffect } from 'react';
import type { CotStepDto, CotSummaryDto } from '../../shared/contract';
import { useCotStore } from '../store/cot';

/** Props of {@link CotPanel}. */
export type CotPanelProps = {
  recordingId: string;
  /** The selected step; its CoT is the trajectory step that shows it. */
  stepId: string | null;
};

const STEP_FIELDS = [
  { key: 'observation', label: 'Observation' },
  { key: 'thought', label: 'Thought' },
  { key: 'action', label: 'Action' },
  { key: 'reflection', label: 'Reflection' },
] as const;

function verdictText(s: CotStepDto): string {
  const verdict = s.lastStepCorrect
    ? s.lastStepRedundant
      ? 'correct, redundant'
      : 'correct'
    : s.lastStepRedundant
      ? 'incorrect, redundant'
      : 'incorrect';
  const by = { model: 'the model', reviewer: 'a reviewer', 'final-step': 'last step' }[
    s.verdictSource
  ];
  return `${verdict} (${by})`;
}

function StepCot({ step }: { step: CotStepDto }) {
  const editStep = useCotStore((s) => s.editStep);
  return (
    <div className="cot-step" data-testid="cot-step" data-index={step.index}>
      <div className="muted" data-testid="cot-verdict">
        Step {step.index + 1}: {verdictText(step)}
        {step.isStale ? ' · stale: the step changed since; run cot again' : ''}
        {step.isEdited ? ' · edited' : ''}
      </div>
      {STEP_FIELDS.map(({ key, label }) => (
        <label key={key} className="field">
          <span className="field-label">{label}</span>
          <textarea
            data-testid={`cot-${key}`}
            defaultValue={step[key]}
            rows={key === 'thought' ? 6 : 3}
            onBlur={(e) => {
              if (e.target.value !== step[key]) {
                void editStep(step.index, { [key]: e.target.value });
              }
            }}
          />
        </label>
      ))}
    </div>
  );
}

const SCORES = [
  { key: 'alignmentScore', label: 'Alignment (0–10)' },
  { key: 'efficiencyScore', label: 'Efficiency (0–10)' },
  { key: 'taskDifficulty', label: 'Difficulty (0–10)' },
] as const;
const SUMMARY_TEXTS = [
  { key: 'actualTask', label: 'Actual task' },
  { key: 'naturalLanguageTask', label: 'Natural-language task' },
  { key: 'reason', label: 'Reason' },
] as const;

function SummaryCot({ summary }: { summary: CotSummaryDto }) {
  const editSummary = useCotStore((s) => s.editSummary);
  return (
    <div className="cot-summary" data-testid="cot-summary">
      <div className="field-label">
        Summary{summary.isStale ? ' (stale)' : ''}
        {summary.isEdited ? ' · edited' : ''}
      </div>
      <label className="field">
        <span className="field-label">Task completed</span>
        <select
          data-testid="cot-task-completed"
          defaultValue={summary.taskCompleted === null ? '' : String(summary.taskCompleted)}
          onChange={(e) => {
            if (e.target.value) {
              void editSummary({ taskCompleted: e.target.value === 'true' });
            }
          }}
        >
          <option value="">—</option>
          <option value="true">yes</option>
          <option value="false">no</option>
        </select>
      </label>
      {SCORES.map(({ key, label }) => (
        <label key={key} className="field">
          <span className="field-label">{label}</span>
          <input
            type="number"
            min={0}
            max={10}
            data-testid={`cot-${key}`}
            defaultValue={summary[key] ?? ''}
            onBlur={(e) => {
              const n = Number(e.target.value);
              if (e.target.value !== '' && Number.isInteger(n) && n !== summary[key]) {
                void editSummary({ [key]: n });
              }
            }}
          />
        </label>
      ))}
      {SUMMARY_TEXTS.map(({ key, label }) => (
        <label key={key} className="field">
          <span className="field-label">{label}</span>
          <textarea
            data-testid={`cot-${key}`}
            defaultValue={summary[key] ?? ''}
            rows={2}
            onBlur={(e) => {
              if (e.target.value !== (summary[key] ?? '')) {
                void editSummary({ [key]: e.target.value });
              }
            }}
          />
        </label>
      ))}
    </div>
  );
}

/** The reasoning panel of the review page. */
export function CotPanel({ recordingId, stepId }: CotPanelProps) {
  const view = useCotStore((s) => (s.recordingId === recordingId ? s.view : null));
  const error = useCotStore((s) => s.error);
  const load = useCotStore((s) => s.load);
  useEffect(() => {
    void load(recordingId);
  }, [load, recordingId]);
  const steps = view?.steps.filter((s) => s.stepId !== null && s.stepId === stepId) ?? [];
  return (
    <section className="cot-panel" data-testid="cot-panel" aria-label="Reasoning">
      <h3>Reasoning (OpenCUA CoT)</h3>
      {error ? <div className="error">{error}</div> : null}
      {view && !view.steps.length && !view.summary ? (
        <p className="muted" data-testid="cot-empty">
          No reasoning yet: run{' '}
          <code>cua-annotator cot {recordingId.slice(0, 8)} --model NAME</code>.
        </p>
      ) : null}
      {/* the textareas keep what was typed until the view changes (a save answers a new view) */}
      <div key={JSON.stringify(view)}>
        {steps.map((s) => (
          <StepCot key={s.index} step={s} />
        ))}
        {view && view.steps.length > 0 && !steps.length ? (
          <p className="muted">No reasoning for this step.</p>
        ) : null}
        {view?.summary ? <SummaryCot summary={view.summary} /> : null}
      </div>
    </section>
  );
}
