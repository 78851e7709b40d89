// "Submit to team" on a recording: sends it to the team hub this library is signed in to, and
// says what became of it (submitted with its version, waiting for the hub and retrying, or why
// it was refused, with the fix).
import { useEffect } from 'react';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useTeamStore } from '../../store/team';
import { pendingLabel } from './team-labels';
import './team.css';

// The button and its state for one recording.
export function SubmitToTeamButton({
  recordingId,
  beforeSubmit,
}: {
  recordingId: string;
  /** Saves what is being typed on the page first (the submit sends the saved recording). */
  beforeSubmit?: () => void;
}) {
  const submit = useTeamStore((s) => s.submits[recordingId]);
  const status = useTeamStore((s) => s.status);
  const pending = status?.pending.find((p) => p.recording === recordingId) ?? null;
  const isHeldForReview = status?.reviews.some((r) => r.recording === recordingId) ?? false;
  // a reviewer-only account submits nothing (the hub would refuse it); unknown roles (the hub
  // away) keep the button: the submit then waits for the hub
  const isAnnotator =
    status === null || status.roles.length === 0 || status.roles.includes('annotator');

  useEffect(() => {
    if (useTeamStore.getState().statusLoad === 'idle') {
      void useTeamStore.getState().loadStatus();
    }
  }, []);

  if (status !== null && !status.signedIn) {
    return (
      <a className="btn" href="#/team" data-testid="team-submit-sign-in">
        Sign in to a team to submit
      </a>
    );
  }
  if (isHeldForReview || !isAnnotator) {
    return null;
  }
  const outcome = submit?.phase === 'done' ? submit.outcome : null;
  return (
    <span className="team-submit">
      <button
        type="button"
        className="btn"
        disabled={submit?.phase === 'submitting'}
        onClick={() => {
          beforeSubmit?.();
          void useTeamStore.getState().submit([recordingId]);
        }}
        data-testid="team-submit"
      >
        {submit?.phase === 'submitting' ? 'Submitting…' : 'Submit to team'}
      </button>
      <span
        className="muted team-submit-state"
        role="status"
        title={pending ? `${pending.lastError.message}. ${pending.lastError.fix ?? ''}` : undefined}
        data-testid="team-submit-state"
      >
        {outcome?.state === 'submitted'
          ? `Submitted (version ${outcome.version ?? '?'})`
          : pending
            ? pendingLabel(pending)
            : ''}
      </span>
      {submit?.phase === 'error' && (
        <ErrorNotice error={submit.error} title="Not submitted" testId="team-submit-error" />
      )}
      {outcome?.state === 'failed' && outcome.error && (
        <ErrorNotice
          error={{ ...outcome.error, fix: outcome.error.fix ?? null }}
          title="Not submitted"
          testId="team-submit-error"
        />
      )}
    </span>
  );
}
