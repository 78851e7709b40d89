// How the team pages name a submission's status and a pending submit.
import type { HubMySubmission } from '../../../shared/contract/hub';
import type { TeamPendingDto } from '../../../shared/contract';

/** The status of a submission in words (a status this version does not know: as it is). */
const SUBMISSION_STATUS_LABELS: Partial<Record<HubMySubmission['status'], string>> = {
  draft: 'draft',
  submitted: 'waiting for review',
  'in-review': 'in review',
  accepted: 'accepted',
  rejected: 'rejected',
  changes: 'changes asked',
  intake: 'being checked by the hub',
  'intake-failed': 'refused by the hub’s checks',
};

/** Statuses that hand the recording back to its annotator to fix and resubmit. */
export const BACK_TO_ANNOTATOR: ReadonlySet<HubMySubmission['status']> = new Set([
  'changes',
  'intake-failed',
]);

// A submission's status in words.
export function submissionStatusLabel(status: HubMySubmission['status']): string {
  return SUBMISSION_STATUS_LABELS[status] ?? status;
}

// What a pending submit is doing, in words.
export function pendingLabel(p: TeamPendingDto): string {
  return p.state === 'waiting'
    ? 'waiting for the hub — retrying'
    : 'not sent — the hub refused it on a retry';
}
