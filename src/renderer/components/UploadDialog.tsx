// Upload dialog: the target (`s3://bucket/prefix`, prefilled from the saved settings) and the
// annotator; starts `uploads:enqueue`, after which the uploads run in the background.
import { useEffect, useRef } from 'react';
import { Modal } from './Modal';
import { uploadsSelectors, useUploadsStore } from '../store/uploads';

// The modal upload dialog (shown while the uploads store's dialog is open).
export function UploadDialog() {
  const s = useUploadsStore();
  const d = s.dialog;
  const firstFieldRef = useRef<HTMLInputElement>(null);
  const canStart = uploadsSelectors.canStart(s);

  useEffect(() => {
    if (d.open) {
      firstFieldRef.current?.focus();
    }
  }, [d.open]);

  if (!d.open) {
    return null;
  }
  const isStarting = d.status === 'starting';
  const close = () => {
    if (!isStarting) {
      s.closeDialog();
    }
  };

  return (
    <Modal
      titleId="upload-title"
      title={
        <>
          Upload {d.ids.length.toLocaleString()} recording{d.ids.length === 1 ? '' : 's'}
        </>
      }
      testId="upload-dialog"
      isBusy={isStarting}
      onClose={close}
    >
      <form
        className="modal-body"
        onSubmit={(e) => {
          e.preventDefault();
          void s.start();
        }}
      >
        <label className="field">
          <span className="field-label">Target (s3://bucket/prefix)</span>
          <input
            ref={firstFieldRef}
            type="text"
            className="input mono"
            placeholder="s3://bucket/prefix"
            value={d.to}
            disabled={isStarting || d.status === 'started'}
            onChange={(e) => s.setTarget(e.target.value)}
            data-testid="upload-target"
          />
        </label>
        {d.endpoint && (
          <p className="muted">
            Endpoint: <code>{d.endpoint}</code>
          </p>
        )}
        <label className="field">
          <span className="field-label">Annotator</span>
          <input
            type="text"
            className="input mono"
            placeholder="annotator-id"
            value={d.annotator}
            disabled={isStarting || d.status === 'started'}
            onChange={(e) => s.setAnnotator(e.target.value)}
            data-testid="upload-annotator"
          />
        </label>
        <p className="muted">
          Credentials come from the service&apos;s AWS environment (AWS_ACCESS_KEY_ID /
          AWS_SECRET_ACCESS_KEY or AWS_PROFILE).
        </p>
        {d.error && (
          <div className="notice notice-bad" role="alert" data-testid="upload-error">
            {d.error}
          </div>
        )}
        {d.status === 'started' && (
          <div className="notice notice-good" data-testid="upload-started">
            Upload started. Follow it on the <a href="#/uploads">Uploads</a> page.
          </div>
        )}
        <footer className="modal-foot">
          <button type="button" className="btn" onClick={close} disabled={isStarting}>
            {d.status === 'started' ? 'Close' : 'Cancel'}
          </button>
          {d.status !== 'started' && (
            <button
              type="submit"
              className="btn btn-primary"
              disabled={!canStart}
              data-testid="upload-start"
            >
              {isStarting ? 'Starting…' : 'Upload'}
            </button>
          )}
        </footer>
      </form>
    </Modal>
  );
}
