// The review workflow: draft → submitted → accepted / needs-edit / rejected.
import type { ReviewStatus } from '../../shared/domain';

/** Human names of review statuses. */
export const REVIEW_STATUS_LABELS: Record<ReviewStatus, string> = {
  draft: 'Draft',
  submitted: 'Submitted',
  accepted: 'Accepted',
  'needs-edit': 'Needs edit',
  rejected: 'Rejected',
};

/** One action a user can take from a status. */
export type ReviewAction = {
  to: ReviewStatus;
  label: string;
  /** Reviewer decisions carry a comment and a grade. */
  isVerdict: boolean;
  tone: 'primary' | 'good' | 'warn' | 'bad' | 'neutral';
};

/** Quality grades a reviewer can give. */
export const QUALITY_GRADES: readonly { value: string; label: string }[] = [
  { value: 'A', label: 'A · excellent' },
  { value: 'B', label: 'B · good' },
  { value: 'C', label: 'C · usable' },
  { value: 'D', label: 'D · poor' },
];

const SUBMIT: ReviewAction = {
  to: 'submitted',
  label: 'Submit for review',
  isVerdict: false,
  tone: 'primary',
};
const VERDICTS: ReviewAction[] = [
  { to: 'accepted', label: 'Accept', isVerdict: true, tone: 'good' },
  { to: 'needs-edit', label: 'Needs edit', isVerdict: true, tone: 'warn' },
  { to: 'rejected', label: 'Reject', isVerdict: true, tone: 'bad' },
];
const REOPEN: ReviewAction = {
  to: 'draft',
  label: 'Back to draft',
  isVerdict: false,
  tone: 'neutral',
};

// The transitions offered from a status.
export function reviewActions(status: ReviewStatus): ReviewAction[] {
  switch (status) {
    case 'draft':
      return [SUBMIT];
    case 'submitted':
      return [...VERDICTS, REOPEN];
    case 'needs-edit':
      return [SUBMIT, REOPEN];
    case 'accepted':
    case 'rejected':
      return [REOPEN, ...VERDICTS.filter((v) => v.to !== status)];
  }
}
