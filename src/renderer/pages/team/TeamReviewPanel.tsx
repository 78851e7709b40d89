// The verdict form on a recording taken from the team's review queue: accept, reject or ask for
// changes, a grade and feedback; the edits made here since it was taken go with it.
import { useEffect, useState } from 'react';
import { HUB_GRADES, HUB_VERDICTS } from '../../../shared/contract/hub';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useTeamStore } from '../../store/team';
import './team.css';

type Verdict = (typeof HUB_VERDICTS)[number];
type Grade = (typeof HUB_GRADES)[number];

const VERDICT_LABELS: Record<Verdict, string> = {
  accept: 'Accept',
  reject: 'Reject',
  changes: 'Ask for changes',
};

// The panel, shown only while this library holds the recording for review.
export function TeamReviewPanel({
  recordingId,
  beforeSend,
}: {
  recordingId: string;
  /** Saves what is being typed on the page before the verdict goes (its edits go with it). */
  beforeSend?: () => void;
}) {
  const held = useTeamStore(
    (s) => s.status?.reviews.find((r) => r.recording === recordingId) ?? null,
  );
  const verdictState = useTeamStore((s) => s.verdict);
  const [verdict, setVerdict] = useState<Verdict>('accept');
  const [grade, setGrade] = useState<Grade | ''>('');
  const [feedback, setFeedback] = useState('');

  useEffect(() => {
    void useTeamStore.getState().loadStatus();
  }, [recordingId]);

  const sent = verdictState.sent?.recording === recordingId ? verdictState.sent : null;
  if (sent) {
    return (
      <section className="panel team-review" data-testid="team-verdict-sent">
        <h2>Team review</h2>
        <p role="status">
          Verdict sent: {sent.status} (submission {sent.submission}, version {sent.version},{' '}
          {sent.edits} edit{sent.edits === 1 ? '' : 's'} with it).
        </p>
        <a href="#/team">Back to the review queue</a>
      </section>
    );
  }
  if (!held) {
    return null;
  }
  return (
    <section className="panel team-review" data-testid="team-review-panel">
      <h2>Team review</h2>
      <p className="muted">
        Submission {held.submission}, version {held.version}, by {held.annotator}. Review and fix
        the steps here; your edits go to the hub with the verdict.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          beforeSend?.();
          void useTeamStore.getState().sendVerdict({
            recordingId,
            verdict,
            ...(grade ? { grade } : {}),
            ...(feedback.trim() ? { feedback: feedback.trim() } : {}),
          });
        }}
      >
        <fieldset className="team-verdicts">
          <legend>Verdict</legend>
          {HUB_VERDICTS.map((v) => (
            <label key={v}>
              <input
                type="radio"
                name="team-verdict"
                value={v}
                checked={verdict === v}
                onChange={() => setVerdict(v)}
                data-testid={`team-verdict-${v}`}
              />{' '}
              {VERDICT_LABELS[v]}
            </label>
          ))}
        </fieldset>
        <label>
          Grade{' '}
          <select
            className="input"
            value={grade}
            onChange={(e) => setGrade(e.target.value as Grade | '')}
            data-testid="team-grade"
          >
            <option value="">(none)</option>
            {HUB_GRADES.map((g) => (
              <option key={g} value={g}>
                {g}
              </option>
            ))}
          </select>
        </label>
        <label className="team-feedback">
          Feedback to the annotator
          <textarea
            className="input"
            value={feedback}
            onChange={(e) => setFeedback(e.target.value)}
            rows={2}
            data-testid="team-feedback"
          />
        </label>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={verdictState.busy}
          data-testid="team-send-verdict"
        >
          {verdictState.busy ? 'Sending…' : 'Send verdict'}
        </button>
      </form>
      {verdictState.error && (
        <ErrorNotice
          error={verdictState.error}
          title="Verdict not sent"
          testId="team-verdict-error"
        />
      )}
    </section>
  );
}
