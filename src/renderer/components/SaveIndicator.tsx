// The visible autosave state: Saved / Saving… / Not saved (with the reason and a retry).
import type { SaveState } from '../store/review';

/** Props of {@link SaveIndicator}. */
export type SaveIndicatorProps = {
  state: SaveState;
  error: string | null;
  /** Reloads the recording from the service after a failed save. */
  onRetry: () => void;
};

// The save-state chip of the recording page.
export function SaveIndicator({ state, error, onRetry }: SaveIndicatorProps) {
  return (
    <div
      className={`save-indicator save-${state}`}
      role="status"
      aria-live="polite"
      data-testid="save-state"
    >
      <span className="save-dot" aria-hidden="true" />
      <span className="save-text">
        {state === 'saving' ? 'Saving…' : state === 'error' ? 'Not saved' : 'Saved'}
      </span>
      {state === 'error' && (
        <>
          {error && (
            <span className="save-error" title={error}>
              {error}
            </span>
          )}
          <button type="button" className="btn btn-small" onClick={onRetry}>
            Reload
          </button>
        </>
      )}
    </div>
  );
}
