// Uploads page (`#/uploads`): every upload with its status, live progress, error, Retry, Cancel.
import { useEffect } from 'react';
import { useApiEvent } from '../hooks/use-api-event';
import { UPLOAD_STATUS_LABELS, uploadsSelectors, useUploadsStore } from '../store/uploads';

// The uploads page.
export function UploadsPage() {
  const s = useUploadsStore();
  const { load } = useUploadsStore.getState();

  useEffect(() => {
    void load();
  }, [load]);

  useApiEvent('uploads:progress', (event) => useUploadsStore.getState().onProgress(event));

  return (
    <div className="page uploads-page" data-testid="uploads-page">
      <header className="page-head">
        <div>
          <h1>Uploads</h1>
          <p className="muted">
            {s.listStatus === 'loading' && s.uploads.length === 0
              ? 'Loading…'
              : `${s.uploads.length.toLocaleString()} upload${s.uploads.length === 1 ? '' : 's'}`}
          </p>
        </div>
        <div className="toolbar">
          <button type="button" className="btn" onClick={() => void load()}>
            Refresh
          </button>
        </div>
      </header>
      {s.error && (
        <div className="notice notice-bad" role="alert" data-testid="uploads-error">
          {s.error}
        </div>
      )}
      {s.listStatus === 'ready' && s.uploads.length === 0 && (
        <p className="muted">
          No uploads yet. Select recordings in the <a href="#/">Library</a> and press Upload.
        </p>
      )}
      <ul className="upload-list" data-testid="upload-list">
        {s.uploads.map((u) => {
          const fraction = uploadsSelectors.fraction(s, u);
          const progressText = uploadsSelectors.progressText(s, u);
          return (
            <li key={u.uploadId} className="upload-row" data-testid={`upload-${u.uploadId}`}>
              <div className="upload-row-head">
                <a href={`#/recording/${encodeURIComponent(u.recordingId)}`}>
                  {u.task || u.recordingId.slice(0, 8)}
                </a>
                <span className={`status-chip upload-${u.status}`} data-testid="upload-status">
                  {UPLOAD_STATUS_LABELS[u.status]}
                </span>
              </div>
              <div className="muted mono">{u.location}</div>
              <div
                className={`progress${fraction === null ? ' is-indeterminate' : ''}`}
                role="progressbar"
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={fraction === null ? undefined : Math.round(fraction * 100)}
              >
                <div
                  className="progress-bar"
                  style={{ width: `${Math.round((fraction ?? 0) * 100)}%` }}
                />
              </div>
              {progressText && (
                <div className="progress-text" data-testid="upload-progress-text">
                  {progressText}
                </div>
              )}
              {u.error && u.status !== 'uploaded' && (
                <div className="notice notice-bad" data-testid="upload-row-error">
                  {u.error}
                </div>
              )}
              <div className="toolbar">
                <button
                  type="button"
                  className="btn btn-small"
                  disabled={!uploadsSelectors.canRetry(s, u)}
                  onClick={() => void s.retry(u.uploadId)}
                  data-testid="upload-retry"
                >
                  Retry
                </button>
                <button
                  type="button"
                  className="btn btn-small"
                  disabled={!uploadsSelectors.canCancel(s, u)}
                  onClick={() => void s.cancel(u.uploadId)}
                  data-testid="upload-cancel"
                >
                  Cancel
                </button>
              </div>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
