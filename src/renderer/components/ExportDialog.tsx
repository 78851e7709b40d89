// Export dialog: pick a Pipeline format and a folder, run `exports:run`, follow its progress.
import { useEffect, useRef } from 'react';
import { Modal } from './Modal';
import { useApiEvent } from '../hooks/use-api-event';
import {
  EXPORT_FORMAT_LABELS,
  exportSelectors,
  useExportStore,
  type ExportFormat,
} from '../store/export';

// every domain format, in the order of their labels (a Record over the format type)
const FORMATS = Object.keys(EXPORT_FORMAT_LABELS) as ExportFormat[];

/** Props of {@link ExportDialog}. */
export type ExportDialogProps = {
  onClose: () => void;
};

// The modal export dialog (the store holds what to export; see `useExportStore.prepare`).
export function ExportDialog({ onClose }: ExportDialogProps) {
  const s = useExportStore();
  const fraction = exportSelectors.fraction(s);
  const canStart = exportSelectors.canStart(s);
  const warnings = exportSelectors.warnings(s);
  const firstFieldRef = useRef<HTMLInputElement>(null);
  useApiEvent('exports:progress', (event) => s.onProgress(event));

  useEffect(() => {
    firstFieldRef.current?.focus();
  }, []);

  const isRunning = s.status === 'running';
  const close = () => {
    if (!isRunning) {
      s.dismiss();
      onClose();
    }
  };

  return (
    <Modal
      titleId="export-title"
      title={
        <>
          Export {s.ids.length.toLocaleString()} recording{s.ids.length === 1 ? '' : 's'}
        </>
      }
      testId="export-dialog"
      isBusy={isRunning}
      onClose={close}
    >
      <form
        className="modal-body"
        onSubmit={(e) => {
          e.preventDefault();
          void s.run();
        }}
      >
        <fieldset className="format-list" disabled={isRunning}>
          <legend>Format</legend>
          {FORMATS.map((f) => (
            <label key={f} className={`format-option${s.format === f ? ' is-checked' : ''}`}>
              <input
                type="radio"
                name="format"
                value={f}
                checked={s.format === f}
                onChange={() => s.setFormat(f)}
              />
              <span>
                <strong>{f}</strong>
                <small>{EXPORT_FORMAT_LABELS[f]}</small>
              </span>
            </label>
          ))}
        </fieldset>
        <label className="field">
          <span className="field-label">Output folder (on the machine running the service)</span>
          <input
            ref={firstFieldRef}
            type="text"
            className="input mono"
            placeholder="/home/me/exports/batch-01"
            value={s.outDir}
            disabled={isRunning}
            onChange={(e) => s.setOutDir(e.target.value)}
            data-testid="export-outdir"
          />
        </label>
        <label className="check-field">
          <input
            type="checkbox"
            checked={s.overwrite}
            disabled={isRunning}
            onChange={(e) => s.setOverwrite(e.target.checked)}
            data-testid="export-overwrite"
          />
          <span>Replace earlier exports of these recordings in that folder</span>
        </label>
        {(isRunning || s.status === 'done') && (
          <div className="progress-block" data-testid="export-progress">
            <div
              className={`progress${fraction === null ? ' is-indeterminate' : ''}`}
              role="progressbar"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={fraction === null ? undefined : Math.round(fraction * 100)}
            >
              <div
                className="progress-bar"
                style={{ width: `${Math.round((fraction ?? 0.3) * 100)}%` }}
              />
            </div>
            <div className="progress-text">
              {s.status === 'done'
                ? 'Export finished'
                : `${s.progress?.phase ?? 'starting'} · ${s.progress?.done ?? 0} of ${s.progress?.total ?? s.ids.length}`}
            </div>
          </div>
        )}
        {s.status === 'done' && s.result && (
          <div className="notice notice-good" data-testid="export-done">
            Wrote {exportSelectors.outputCount(s).toLocaleString()} file
            {exportSelectors.outputCount(s) === 1 ? '' : 's'} to <code>{s.result.outDir}</code>
            {exportSelectors.outputNames(s).length > 0 && (
              <>
                {' '}
                (<code>{exportSelectors.outputNames(s).join(', ')}</code>)
              </>
            )}
            {warnings.length > 0 && (
              <ul className="warnings">
                {warnings.slice(0, 20).map((w, i) => (
                  <li key={i}>{w}</li>
                ))}
              </ul>
            )}
          </div>
        )}
        {s.status === 'error' && (
          <div className="notice notice-bad" role="alert" data-testid="export-error">
            {s.error}
            {s.existingPath !== null && (
              <div className="notice-actions">
                <button
                  type="button"
                  className="btn btn-small"
                  onClick={() => {
                    s.setOverwrite(true);
                    void s.run();
                  }}
                  data-testid="export-overwrite-now"
                >
                  Overwrite
                </button>
              </div>
            )}
          </div>
        )}
        <footer className="modal-foot">
          <button type="button" className="btn" onClick={close} disabled={isRunning}>
            {s.status === 'done' ? 'Close' : 'Cancel'}
          </button>
          <button
            type="submit"
            className="btn btn-primary"
            disabled={!canStart}
            data-testid="export-start"
          >
            {isRunning ? 'Exporting…' : s.status === 'done' ? 'Export again' : 'Export'}
          </button>
        </footer>
      </form>
    </Modal>
  );
}
