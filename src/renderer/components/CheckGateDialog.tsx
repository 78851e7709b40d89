// The check gate dialog (docs/quality.md §3): the problems `recordings:check` found before a
// review move or an upload, each with its step and fix; "Fix first" cancels, warnings only may
// go on anyway, errors block (before a review move the reviewer may go on with a reason, which
// the verdict's comment keeps).
import { Modal } from './Modal';
import './check-gate.css';
import { canGoOn, gateCounts, useCheckGateStore, type GatePurpose } from '../store/check';

// The gate's words for what it stands before (the title and the go-on button).
const GATE_WORDS: Record<GatePurpose, { verb: string; noun: string }> = {
  submit: { verb: 'Submit', noun: 'submitting' },
  accept: { verb: 'Accept', noun: 'accepting' },
  upload: { verb: 'Upload', noun: 'uploading' },
};

// The modal check gate (shown while the check gate store's dialog is open).
export function CheckGateDialog() {
  const s = useCheckGateStore();
  if (!s.open) {
    return null;
  }
  const { errors, warnings } = gateCounts(s);
  const { verb, noun } = GATE_WORDS[s.purpose];
  const many = s.results.length > 1;
  return (
    <Modal
      titleId="check-gate-title"
      title={<>Checks before {noun}</>}
      testId="check-gate"
      isBusy={false}
      onClose={s.fixFirst}
    >
      <div className="modal-body">
        {s.status === 'error' ? (
          <div className="notice notice-bad" role="alert" data-testid="check-gate-error">
            The checks could not run: {s.error}
          </div>
        ) : (
          <p data-testid="check-gate-summary">
            {errors} error{errors === 1 ? '' : 's'}, {warnings} warning
            {warnings === 1 ? '' : 's'}.{' '}
            {errors > 0 ? 'Errors block until they are fixed.' : 'Warnings do not block.'}
          </p>
        )}
        {s.results
          .filter((r) => r.problems.length > 0)
          .map((r) => (
            <section key={r.id}>
              {many && <h3 className="section-title mono">{r.id}</h3>}
              <ul className="check-problems" data-testid="check-problems">
                {r.problems.map((p, i) => (
                  <li key={`${p.code}-${p.stepIndex ?? 'r'}-${i}`} data-testid="check-problem">
                    <span className={`chip chip-check-${p.severity}`} data-severity={p.severity}>
                      {p.severity}
                    </span>{' '}
                    <code>{p.code}</code>
                    {p.stepIndex !== null && <span className="muted"> step {p.stepIndex}</span>}
                    <div>{p.message}</div>
                    <div className="muted">Fix: {p.fix}</div>
                  </li>
                ))}
              </ul>
            </section>
          ))}
        {s.status === 'ready' && errors > 0 && s.purpose !== 'upload' && (
          <label className="field">
            <span className="field-label">
              Reason to {verb.toLowerCase()} despite the errors (kept in the review comment)
            </span>
            <textarea
              className="input"
              rows={2}
              value={s.reason}
              onChange={(e) => s.setReason(e.target.value)}
              data-testid="check-gate-reason"
            />
          </label>
        )}
        <footer className="modal-foot">
          <button type="button" className="btn" onClick={s.fixFirst} data-testid="check-gate-fix">
            Fix first
          </button>
          {s.status === 'ready' && (errors === 0 || s.purpose !== 'upload') && (
            <button
              type="button"
              className={`btn ${errors ? 'btn-bad' : 'btn-primary'}`}
              disabled={!canGoOn(s)}
              onClick={s.goOn}
              data-testid="check-gate-go-on"
            >
              {errors ? `${verb} despite errors` : `${verb} anyway`}
            </button>
          )}
        </footer>
      </div>
    </Modal>
  );
}
