// HUD page (`#/hud`): the desktop app's small always-on-top window while recording: the task,
// the elapsed time, Pause / Resume and Stop. It has no navigation; the main window opens the
// saved recording.
import { ErrorNotice } from '../components/ErrorNotice';
import { useNow } from '../hooks/use-now';
import { useRecorderStatus } from '../hooks/use-recorder-status';
import { formatDurationMs } from '../lib/time';
import { RECORDER_STATE_LABELS, recorderSelectors, useRecorderStore } from '../store/recorder';
import './recorder-pages.css';

// The HUD page.
export function HudPage() {
  const s = useRecorderStore();
  const actions = useRecorderStore.getState();
  const state = recorderSelectors.state(s);
  const now = useNow(state === 'recording');

  useRecorderStatus();

  return (
    <div className={`hud hud-${state}`} data-testid="hud-page">
      <div className="hud-row">
        <span className={`hud-dot rec-state-${state}`} aria-hidden="true" />
        <span className="hud-state" data-testid="hud-state">
          {RECORDER_STATE_LABELS[state]}
        </span>
        <span className="hud-elapsed mono" role="timer" data-testid="hud-elapsed">
          {formatDurationMs(recorderSelectors.elapsedMs(s, now))}
        </span>
        {state === 'paused' ? (
          <button
            type="button"
            className="btn btn-small btn-primary"
            disabled={!recorderSelectors.canResume(s)}
            onClick={() => void actions.resume()}
            data-testid="hud-resume"
          >
            Resume
          </button>
        ) : (
          <button
            type="button"
            className="btn btn-small"
            disabled={!recorderSelectors.canPause(s)}
            onClick={() => void actions.pause()}
            data-testid="hud-pause"
          >
            Pause
          </button>
        )}
        <button
          type="button"
          className="btn btn-small btn-good"
          disabled={!recorderSelectors.canStop(s)}
          onClick={() => void actions.stop()}
          data-testid="hud-stop"
        >
          Stop
        </button>
      </div>
      <div className="hud-task" title={s.status?.task ?? ''} data-testid="hud-task">
        {s.status?.task ?? 'Not recording'}
      </div>
      {s.status && s.status.warnings.length > 0 && (
        <div className="hud-warning" role="status">
          {s.status.warnings[s.status.warnings.length - 1]}
        </div>
      )}
      {s.error && (
        <ErrorNotice error={s.error} testId="hud-error" onDismiss={actions.dismissError} />
      )}
    </div>
  );
}
