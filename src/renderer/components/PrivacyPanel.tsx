// The Privacy panel of the recording page: the PII scan's findings by kind (card numbers, IBANs
// and secrets marked as blocking export and upload), each a button that jumps to its step and
// moment in the video, with "Redact" (its text leaves as a placeholder) and "Accept" (with an
// optional note) while open, and its state once resolved; "Redact all open" redacts the rest.
// The scan runs when the panel opens, after saved edits (so a redaction, an acceptance or an
// undo shows at once) and on "Scan".
import { useEffect, useState } from 'react';
import type { RecordingDto } from '../../shared/contract';
import type { PiiFinding } from '../../shared/domain';
import { findingClock } from '../lib/privacy-target';
import { useReviewStore } from '../store/review';
import {
  PII_KIND_LABELS,
  PII_SOURCE_LABELS,
  privacySelectors,
  usePrivacyStore,
  type ScanFinding,
} from '../store/privacy';
import { ErrorNotice } from './ErrorNotice';
import './privacy-panel.css';

/** Props of {@link PrivacyPanel}. */
export type PrivacyPanelProps = {
  recording: RecordingDto;
  /** A finding was chosen: select its step and seek the video to it. */
  onJump: (finding: PiiFinding) => void;
};

const EMPTY: ScanFinding[] = [];

function whereText(f: PiiFinding, rec: RecordingDto): string {
  const parts: string[] = [
    f.file === undefined ? PII_SOURCE_LABELS[f.source] : `${PII_SOURCE_LABELS[f.source]} ${f.file}`,
  ];
  if (f.stepIndex !== null) {
    parts.push(`step ${f.stepIndex + 1}`);
  }
  const clock = findingClock(f, rec);
  if (clock) {
    parts.push(`at ${clock}`);
  }
  return parts.join(', ');
}

// The panel; scans `recording` when it mounts (the tab opens), the recording changes, or its
// edits or task text are saved.
export function PrivacyPanel({ recording, onJump }: PrivacyPanelProps) {
  const id = recording.id;
  const isOurs = usePrivacyStore((s) => privacySelectors.isFor(s, id));
  const status = usePrivacyStore((s) => (isOurs ? s.status : 'idle'));
  const error = usePrivacyStore((s) => (isOurs ? s.error : null));
  const groups = usePrivacyStore(privacySelectors.groups);
  const findings = usePrivacyStore((s) => (isOurs ? s.findings : EMPTY));
  const blocking = usePrivacyStore(privacySelectors.blockingCount);
  const openCount = usePrivacyStore((s) => (isOurs ? privacySelectors.openCount(s) : 0));
  const resolvedCount = usePrivacyStore((s) => (isOurs ? privacySelectors.resolvedCount(s) : 0));
  const busy = usePrivacyStore((s) => s.busy);
  const actionError = usePrivacyStore((s) => (isOurs ? s.actionError : null));
  const isScanning = status === 'scanning';
  // the finding whose "Accept" asks for its note, and the note typed
  const [accepting, setAccepting] = useState<{ id: string; note: string } | null>(null);
  const store = usePrivacyStore.getState;

  // what the scan reads that the reviewer can change here: the saved edits and task text (a
  // confirmed change rescans, so an undone or redacted finding goes away without a click)
  const savedText = useReviewStore((s) =>
    s.confirmed?.id === id
      ? `${s.confirmed.editVersion}\n${s.confirmed.task}\n${s.confirmed.description}`
      : '',
  );

  useEffect(() => {
    void usePrivacyStore.getState().scan(id);
  }, [id, savedText]);

  return (
    <div className="panel-section privacy-panel" data-testid="privacy-panel">
      <div className="privacy-head">
        <p className="muted privacy-intro">
          Personal data and secrets in the typed text, window titles, accessibility data, task text
          and labels. Card numbers, IBANs and secrets block export and upload until resolved.
        </p>
        <button
          type="button"
          className="btn btn-small"
          disabled={isScanning}
          onClick={() => void usePrivacyStore.getState().scan(id)}
          data-testid="privacy-scan"
        >
          {isScanning ? 'Scanning…' : 'Scan'}
        </button>
        <button
          type="button"
          className="btn btn-small"
          disabled={openCount === 0 || busy !== null}
          onClick={() => void store().redactAllOpen(id)}
          title="Redact the text of every open finding: it leaves as a placeholder ([EMAIL], [CARD], …) in every export and upload; the recording keeps it"
          data-testid="privacy-redact-all"
        >
          Redact all open{openCount > 0 ? ` (${openCount})` : ''}
        </button>
      </div>
      <div role="status" aria-live="polite" className="privacy-status" data-testid="privacy-status">
        {isScanning
          ? 'Scanning the recording…'
          : status === 'done'
            ? findings.length === 0
              ? 'No personal data found'
              : `${findings.length} finding${findings.length === 1 ? '' : 's'}` +
                (blocking > 0 ? `, ${blocking} blocking` : '') +
                (resolvedCount > 0 ? `, ${resolvedCount} resolved` : '')
            : ''}
      </div>
      {status === 'error' && error && (
        <ErrorNotice error={error} title="The scan failed" testId="privacy-error" />
      )}
      {actionError && (
        <ErrorNotice
          error={actionError}
          title={busy === null ? 'The change was not saved' : undefined}
          testId="privacy-action-error"
          onDismiss={() => store().dismissActionError()}
        />
      )}
      {status === 'done' && findings.length === 0 && (
        <div className="empty-state privacy-empty" data-testid="privacy-empty">
          No personal data found
        </div>
      )}
      {isOurs &&
        findings.length > 0 &&
        groups.map((g) => (
          <section
            key={g.kind}
            className={`privacy-group${g.isBlocking ? ' is-blocking' : ''}`}
            aria-label={`${PII_KIND_LABELS[g.kind]}: ${g.findings.length}`}
            data-testid="privacy-group"
            data-kind={g.kind}
          >
            <h3 className="privacy-group-head">
              <span className={`chip privacy-kind privacy-kind-${g.kind}`}>{g.kind}</span>
              <span className="privacy-kind-name">{PII_KIND_LABELS[g.kind]}</span>
              <span className="privacy-count" data-testid="privacy-count">
                {g.findings.length}
              </span>
              {g.isBlocking && (
                <span
                  className="chip privacy-blocking"
                  title="Blocks export and upload until redacted or marked acceptable"
                >
                  blocking
                </span>
              )}
            </h3>
            <ul className="privacy-list">
              {g.findings.map((f) => {
                const where = whereText(f, recording);
                const isBusy = busy?.findingIds.includes(f.id) ?? false;
                return (
                  <li
                    key={f.id}
                    className={`privacy-item${f.resolved ? ' is-resolved' : ''}`}
                    data-testid="privacy-item"
                    data-finding-id={f.id}
                    data-kind={f.kind}
                    data-resolved={f.resolved ?? ''}
                  >
                    <button
                      type="button"
                      className="privacy-row"
                      onClick={() => onJump(f)}
                      aria-label={`${PII_KIND_LABELS[f.kind]} in ${where}: ${f.excerpt}. ${
                        f.stepIndex !== null ? 'Go to the step' : 'Show the task'
                      }`}
                      data-testid="privacy-finding"
                      data-finding-id={f.id}
                      data-kind={f.kind}
                      data-step-index={f.stepIndex ?? ''}
                    >
                      <span className="privacy-where muted">{where}</span>
                      <code className="privacy-excerpt">{f.excerpt}</code>
                    </button>
                    {f.resolved ? (
                      <span
                        className={`chip privacy-resolved privacy-resolved-${f.resolved}`}
                        title={
                          f.resolved === 'redacted'
                            ? 'Its text leaves as a placeholder in every export and upload (Undo brings it back)'
                            : 'Marked acceptable: it no longer blocks export and upload (Undo reopens it)'
                        }
                        data-testid="privacy-resolved"
                      >
                        {f.resolved}
                      </span>
                    ) : accepting?.id === f.id ? (
                      <form
                        className="privacy-accept-form"
                        onSubmit={(e) => {
                          e.preventDefault();
                          const note = accepting.note;
                          setAccepting(null);
                          void store().accept(id, f.id, note);
                        }}
                      >
                        <input
                          className="input input-small"
                          value={accepting.note}
                          placeholder="Why is it acceptable? (optional)"
                          maxLength={2000}
                          autoFocus
                          onChange={(e) => setAccepting({ id: f.id, note: e.target.value })}
                          aria-label="Note (optional)"
                          data-testid="privacy-accept-note"
                        />
                        <button
                          type="submit"
                          className="btn btn-small btn-primary"
                          data-testid="privacy-accept-confirm"
                        >
                          Accept
                        </button>
                        <button
                          type="button"
                          className="btn btn-small btn-ghost"
                          onClick={() => setAccepting(null)}
                        >
                          Cancel
                        </button>
                      </form>
                    ) : (
                      <div className="privacy-actions">
                        <button
                          type="button"
                          className="btn btn-small"
                          disabled={busy !== null}
                          onClick={() => void store().redact(id, [f.id])}
                          title="Its text leaves as a placeholder in every export and upload; the recording keeps it"
                          data-testid="privacy-redact"
                        >
                          {isBusy && busy?.kind === 'redact' ? 'Redacting…' : 'Redact'}
                        </button>
                        <button
                          type="button"
                          className="btn btn-small btn-ghost"
                          disabled={busy !== null}
                          onClick={() => setAccepting({ id: f.id, note: '' })}
                          title="Mark it acceptable: it leaves as is and no longer blocks export and upload"
                          data-testid="privacy-accept"
                        >
                          {isBusy && busy?.kind === 'accept' ? 'Accepting…' : 'Accept'}
                        </button>
                      </div>
                    )}
                  </li>
                );
              })}
            </ul>
          </section>
        ))}
    </div>
  );
}
