// Record page (`#/record`): type the task, start (after the optional countdown), follow the
// recorder's live status, pause / resume, stop (then the new recording opens) or discard after a
// confirmation. The service owns the recorder, so a reload finds a recording still going.
import { useEffect, useRef } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { Modal } from '../components/Modal';
import { useNow } from '../hooks/use-now';
import { useRecorderStatus } from '../hooks/use-recorder-status';
import { routeHash } from '../lib/route';
import { formatDurationMs } from '../lib/time';
import {
  ACCESSIBILITY_LABELS,
  RECORDER_STATE_LABELS,
  recorderSelectors,
  useRecorderStore,
} from '../store/recorder';
import { TeamTasksPanel } from './TeamTasksPanel';
import './recorder-pages.css';

// The record page.
export function RecordPage() {
  const s = useRecorderStore();
  const actions = useRecorderStore.getState();
  const state = recorderSelectors.state(s);
  const isActive = recorderSelectors.isActive(s);
  const now = useNow(state === 'recording');
  const taskRef = useRef<HTMLInputElement>(null);

  useRecorderStatus();

  // a recording seen being saved opens its page (stopped here, from the HUD, tray or a hotkey)
  useEffect(() => {
    if (s.savedRecordingId) {
      const id = s.savedRecordingId;
      useRecorderStore.getState().clearSaved();
      window.location.hash = routeHash({ page: 'recording', id });
    }
  }, [s.savedRecordingId]);

  useEffect(() => {
    if (!isActive && s.countdownLeft === null) {
      taskRef.current?.focus();
    }
  }, [isActive, s.countdownLeft]);

  const status = s.status;
  return (
    <div className="page record-page" data-testid="record-page">
      <header className="page-head">
        <div>
          <h1>Record</h1>
          <p className="muted">
            Say what you are about to do, start, do it, then stop. Every click, key and scroll
            becomes a step; your clicks on Pause and Stop here do not.
          </p>
        </div>
        <span className={`rec-state rec-state-${state}`} data-testid="record-state">
          {RECORDER_STATE_LABELS[state]}
        </span>
      </header>

      {s.error && (
        <ErrorNotice
          error={s.error}
          title="The recorder refused"
          testId="record-error"
          onDismiss={actions.dismissError}
        />
      )}
      {status?.error && !isActive && status.error.message !== s.error?.message && (
        <ErrorNotice
          error={{ ...status.error, fix: status.error.fix ?? null }}
          title="The last recording did not finish normally"
          testId="record-last-error"
        />
      )}
      {s.notice && (
        <div className="notice notice-good" role="status" data-testid="record-notice">
          {s.notice}
        </div>
      )}

      {!isActive && (
        <form
          className="record-form panel-card"
          onSubmit={(e) => {
            e.preventDefault();
            void actions.start();
          }}
        >
          <label htmlFor="record-task" className="field-label">
            Task
          </label>
          <input
            ref={taskRef}
            id="record-task"
            type="text"
            className="input record-task"
            placeholder="e.g. Turn on night light in the display settings"
            maxLength={2000}
            value={s.task}
            disabled={s.countdownLeft !== null || s.busy === 'start'}
            onChange={(e) => actions.setTask(e.target.value)}
            aria-describedby="record-task-help"
            data-testid="record-task"
          />
          <p id="record-task-help" className="muted small">
            One sentence a model could follow. It can be edited later on the recording&apos;s page.
          </p>
          {s.countdownLeft === null ? (
            <div className="toolbar">
              <button
                type="submit"
                className="btn btn-primary"
                disabled={!recorderSelectors.canStart(s)}
                data-testid="record-start"
              >
                {s.busy === 'start' ? 'Starting…' : 'Start recording'}
              </button>
              {s.countdownS > 0 && (
                <span className="muted small">
                  Starts after a {s.countdownS} s countdown (see <a href="#/settings">Settings</a>
                  ).
                </span>
              )}
            </div>
          ) : (
            <div className="countdown" data-testid="record-countdown">
              <span className="countdown-number" role="timer" aria-live="assertive">
                {s.countdownLeft}
              </span>
              <span>Recording starts in {s.countdownLeft} s…</span>
              <button
                type="button"
                className="btn"
                onClick={actions.cancelCountdown}
                data-testid="record-countdown-cancel"
                autoFocus
              >
                Cancel
              </button>
            </div>
          )}
          {status?.lastRecordingId && (
            <p className="muted small" data-testid="record-last">
              Last recording:{' '}
              <a href={routeHash({ page: 'recording', id: status.lastRecordingId })}>open it</a>
            </p>
          )}
        </form>
      )}

      {!isActive && <TeamTasksPanel disabled={s.countdownLeft !== null || s.busy === 'start'} />}

      {isActive && status && (
        <section
          className="record-live panel-card"
          aria-label="Recording status"
          data-testid="record-status"
        >
          <p className="record-live-task" data-testid="record-live-task">
            {status.task}
          </p>
          <dl className="record-stats">
            <div>
              <dt>Elapsed</dt>
              <dd className="mono" data-testid="record-elapsed">
                {formatDurationMs(recorderSelectors.elapsedMs(s, now))}
              </dd>
            </div>
            <div>
              <dt>Frames</dt>
              <dd className="mono" data-testid="record-frames">
                {status.frames.toLocaleString()}
              </dd>
            </div>
            <div className={status.droppedFrames > 0 ? 'is-warn' : ''}>
              <dt>Dropped frames</dt>
              <dd className="mono" data-testid="record-dropped">
                {status.droppedFrames.toLocaleString()}
              </dd>
            </div>
            <div>
              <dt>Input events</dt>
              <dd className="mono" data-testid="record-events">
                {status.events.toLocaleString()}
              </dd>
            </div>
            <div className={status.accessibility === 'unavailable' ? 'is-warn' : ''}>
              <dt>Accessibility</dt>
              <dd data-testid="record-accessibility">
                {ACCESSIBILITY_LABELS[status.accessibility]}
              </dd>
            </div>
          </dl>
          {status.warnings.length > 0 && (
            <ul className="record-warnings" aria-label="Warnings" data-testid="record-warnings">
              {status.warnings.map((w, i) => (
                <li key={i}>{w}</li>
              ))}
            </ul>
          )}
          <div className="toolbar">
            {state === 'paused' ? (
              <button
                type="button"
                className="btn btn-primary"
                disabled={!recorderSelectors.canResume(s)}
                onClick={() => void actions.resume()}
                data-testid="record-resume"
              >
                Resume
              </button>
            ) : (
              <button
                type="button"
                className="btn"
                disabled={!recorderSelectors.canPause(s)}
                onClick={() => void actions.pause()}
                data-testid="record-pause"
              >
                Pause
              </button>
            )}
            <button
              type="button"
              className="btn btn-good"
              disabled={!recorderSelectors.canStop(s)}
              onClick={() => void actions.stop()}
              data-testid="record-stop"
            >
              {s.busy === 'stop' || state === 'stopping' ? 'Saving…' : 'Stop'}
            </button>
            <button
              type="button"
              className="btn btn-danger"
              disabled={!recorderSelectors.canDiscard(s)}
              onClick={actions.askDiscard}
              data-testid="record-discard"
            >
              Discard
            </button>
          </div>
        </section>
      )}

      {s.isConfirmingDiscard && (
        <Modal
          titleId="discard-title"
          title="Discard this recording?"
          testId="discard-dialog"
          isBusy={false}
          onClose={actions.cancelDiscard}
        >
          <div className="modal-body">
            <p>
              The video, the input and everything else captured for “{status?.task}” is deleted.
              This cannot be undone.
            </p>
            <div className="modal-foot">
              <button
                type="button"
                className="btn"
                onClick={actions.cancelDiscard}
                autoFocus
                data-testid="discard-cancel"
              >
                Keep recording
              </button>
              <button
                type="button"
                className="btn btn-danger"
                onClick={() => void actions.discard()}
                data-testid="discard-confirm"
              >
                Discard recording
              </button>
            </div>
          </div>
        </Modal>
      )}
    </div>
  );
}
