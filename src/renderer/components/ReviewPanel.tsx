// Review workflow: the status, the moves allowed from it (with a comment and a quality grade for
// verdicts), and the review history.
import { useState } from 'react';
import type { RecordingDto } from '../../shared/contract';
import { QUALITY_GRADES, REVIEW_STATUS_LABELS, reviewActions } from '../lib/review-workflow';
import { formatDateTime } from '../lib/time';
import { overrideComment, useCheckGateStore } from '../store/check';
import type { ReviewStatusInput } from '../store/review';
import { ReviewChip } from './StatusChip';

const REVIEWER_KEY = 'cua-annotator.reviewer';

// Moves that submit the recording: the checks before submit run first (docs/quality.md §3).
const GATED_STATUSES: readonly string[] = ['submitted', 'accepted'];

function readReviewer(): string {
  try {
    return window.localStorage.getItem(REVIEWER_KEY) ?? '';
  } catch {
    return '';
  }
}

/** Props of {@link ReviewPanel}. */
export type ReviewPanelProps = {
  recording: RecordingDto;
  isBusy: boolean;
  error: string | null;
  onSetStatus: (input: ReviewStatusInput) => void;
};

// The review panel of the recording page.
export function ReviewPanel({ recording, isBusy, error, onSetStatus }: ReviewPanelProps) {
  const [comment, setComment] = useState('');
  const [grade, setGrade] = useState('');
  const [reviewer, setReviewer] = useState(readReviewer);
  const actions = reviewActions(recording.reviewStatus);
  const history = [...recording.reviews].sort((a, b) => b.atMs - a.atMs);

  return (
    <div className="panel-section review-panel" data-testid="review-panel">
      <div className="review-status-line">
        <span className="field-label">Status</span>
        <ReviewChip status={recording.reviewStatus} />
      </div>
      <label className="field">
        <span className="field-label">Reviewer</span>
        <input
          className="input"
          value={reviewer}
          placeholder="Your name"
          onChange={(e) => {
            setReviewer(e.target.value);
            try {
              window.localStorage.setItem(REVIEWER_KEY, e.target.value);
            } catch {
              // storage may be disabled; the name then lasts for this page only
            }
          }}
        />
      </label>
      <label className="field">
        <span className="field-label">Comment</span>
        <textarea
          className="input"
          rows={3}
          value={comment}
          placeholder="What is good, what needs to change…"
          onChange={(e) => setComment(e.target.value)}
        />
      </label>
      <label className="field">
        <span className="field-label">Quality grade</span>
        <select className="input" value={grade} onChange={(e) => setGrade(e.target.value)}>
          <option value="">—</option>
          {QUALITY_GRADES.map((g) => (
            <option key={g.value} value={g.value}>
              {g.label}
            </option>
          ))}
        </select>
      </label>
      <div className="review-actions">
        {actions.map((a) => (
          <button
            key={a.to}
            type="button"
            className={`btn btn-${a.tone}`}
            disabled={isBusy}
            onClick={() => {
              const input: ReviewStatusInput = { status: a.to };
              if (comment.trim() !== '') {
                input.comment = comment.trim();
              }
              if (a.isVerdict && grade !== '') {
                input.grade = grade;
              }
              if (reviewer.trim() !== '') {
                input.reviewer = reviewer.trim();
              }
              if (!GATED_STATUSES.includes(a.to)) {
                onSetStatus(input);
                setComment('');
                return;
              }
              const purpose = a.to === 'accepted' ? 'accept' : 'submit';
              void useCheckGateStore.getState().request([recording.id], purpose, (decision) => {
                const withOverride = overrideComment(input.comment, decision);
                onSetStatus(
                  withOverride === undefined ? input : { ...input, comment: withOverride },
                );
                setComment('');
              });
            }}
            data-testid={`review-${a.to}`}
          >
            {a.label}
          </button>
        ))}
      </div>
      {error && (
        <div className="notice notice-bad" role="alert">
          {error}
        </div>
      )}
      <h3 className="section-title">History</h3>
      {history.length === 0 ? (
        <p className="muted">No review yet.</p>
      ) : (
        <ol className="review-history">
          {history.map((r, i) => (
            <li key={`${r.atMs}-${i}`}>
              <div className="history-head">
                <ReviewChip status={r.status} />
                {r.grade && <span className="chip chip-grade">grade {r.grade}</span>}
                <span className="muted">{formatDateTime(r.atMs)}</span>
              </div>
              <div className="history-body">
                {r.reviewer && <strong>{r.reviewer}: </strong>}
                {r.comment ?? <span className="muted">{REVIEW_STATUS_LABELS[r.status]}</span>}
              </div>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
