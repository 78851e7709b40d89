// Coloured chips for review status, capture status, step kind and step marks.
import type { StepMark } from '../../shared/contract';
import type { RecordingStatus, ReviewStatus } from '../../shared/domain';
import { REVIEW_STATUS_LABELS } from '../lib/review-workflow';

// Chip of a review status (draft, submitted, accepted, needs-edit, rejected).
export function ReviewChip({ status }: { status: ReviewStatus }) {
  return (
    <span className={`chip chip-review-${status}`} data-testid="review-chip">
      {REVIEW_STATUS_LABELS[status]}
    </span>
  );
}

const CAPTURE_LABELS: Record<RecordingStatus, string> = {
  active: 'Recording',
  complete: 'Complete',
  recovered: 'Recovered',
  corrupt: 'Corrupt',
  failed: 'Failed',
};

// Chip of a capture status (complete, recovered, corrupt, …).
export function CaptureChip({ status }: { status: RecordingStatus }) {
  return <span className={`chip chip-capture-${status}`}>{CAPTURE_LABELS[status]}</span>;
}

const MARK_LABELS: Record<StepMark, string> = {
  correct: '✓ Correct',
  incorrect: '✗ Incorrect',
  redundant: '≈ Redundant',
};

// Chip of a reviewer's step mark.
export function MarkChip({ mark }: { mark: StepMark }) {
  return <span className={`chip chip-mark-${mark}`}>{MARK_LABELS[mark]}</span>;
}

// Chip of a step's action kind.
export function KindChip({ kind }: { kind: string }) {
  return <span className="chip chip-kind">{kind}</span>;
}
