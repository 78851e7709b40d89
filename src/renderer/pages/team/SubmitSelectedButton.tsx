// "Submit selected to team" in the Library: sends the selected recordings to the team hub and
// says how it went (submitted, waiting for the hub, refused); shown once signed in.
import { useEffect, useState } from 'react';
import { useTeamStore } from '../../store/team';

// What became of a submit of several recordings, in a few words.
function summary(states: readonly ('submitted' | 'queued' | 'failed' | 'error')[]): string {
  const count = (s: string) => states.filter((x) => x === s).length;
  const parts = [
    count('submitted') ? `${count('submitted')} submitted` : '',
    count('queued') ? `${count('queued')} waiting for the hub — retrying` : '',
    count('failed') + count('error') ? `${count('failed') + count('error')} not submitted` : '',
  ];
  return parts.filter(Boolean).join(', ');
}

// The button; `getIds` reads the selection when clicked.
export function SubmitSelectedButton({
  getIds,
  disabled,
}: {
  getIds: () => string[];
  disabled: boolean;
}) {
  const status = useTeamStore((s) => s.status);
  const submits = useTeamStore((s) => s.submits);
  const [sent, setSent] = useState<string[]>([]);

  useEffect(() => {
    if (useTeamStore.getState().statusLoad === 'idle') {
      void useTeamStore.getState().loadStatus();
    }
  }, []);

  if (!status?.signedIn) {
    return null;
  }
  const busy = sent.some((id) => submits[id]?.phase === 'submitting');
  const states = sent.flatMap((id) => {
    const s = submits[id];
    return s?.phase === 'done' ? [s.outcome.state] : s?.phase === 'error' ? ['error' as const] : [];
  });
  return (
    <>
      <button
        type="button"
        className="btn"
        disabled={disabled || busy}
        title={disabled ? 'Select recordings to submit' : 'Submit to your team’s hub'}
        onClick={() => {
          const ids = getIds();
          setSent(ids);
          void useTeamStore.getState().submit(ids);
        }}
        data-testid="team-submit-selected"
      >
        {busy ? 'Submitting…' : 'Submit selected to team'}
      </button>
      {!busy && states.length > 0 && (
        <span className="muted" role="status" data-testid="team-submit-selected-state">
          {summary(states)} (see <a href="#/team">Team</a>)
        </span>
      )}
    </>
  );
}
