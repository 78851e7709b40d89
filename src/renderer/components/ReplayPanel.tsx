// The Replay panel of the recording page (docs/replay.md §6): replays the recording's steps on
// the display the settings name (a virtual desktop showing the start state) and shows the result
// per step — ok or diverges, the screen difference, the element comparison — with the score and
// the first divergent step; a result chosen shows the step's keyframe and the live screen side by
// side with its note and the recorded and live elements. Off (a hint and a link to Settings) while
// the settings name no display. Opening the panel shows the last stored report.
import { useEffect, useRef } from 'react';
import type { RecordingDto } from '../../shared/contract';
import {
  elementText,
  REPLAY_SPEEDS,
  replaySelectors,
  screenDiffText,
  useReplayStore,
  verdictText,
  type ReplayResultDto,
} from '../store/replay';
import { useReviewStore } from '../store/review';
import { ErrorNotice } from './ErrorNotice';
import './replay-panel.css';

/** Props of {@link ReplayPanel}. */
export type ReplayPanelProps = {
  recording: RecordingDto;
  /** A step's result was chosen: select the step. */
  onSelectStep: (stepId: string) => void;
};

const EMPTY: ReplayResultDto[] = [];

const STOP_REASONS: Record<string, string> = {
  'user-input': 'someone moved the mouse on the replay display',
  hotkey: 'the stop hotkey was pressed',
  cancelled: 'it was cancelled',
  error: 'an error',
};

function resultName(r: Pick<ReplayResultDto, 'kind' | 'index'>): string {
  return r.kind === 'end' ? 'End state' : `Step ${r.index + 1}`;
}

function speedLabel(speed: number): string {
  return speed === 1 ? 'Recorded pace' : speed >= 100 ? 'Fastest' : `${speed}× faster`;
}

function elementLabel(e: ReplayResultDto['recordedElement']): string {
  return e ? `${e.controlType}${e.title ? ` “${e.title}”` : ''}` : 'none';
}

// The keyframe and the live screen of one result, side by side.
function Comparison({ result, isRunning }: { result: ReplayResultDto; isRunning: boolean }) {
  return (
    <section
      className="replay-compare"
      aria-label={`${resultName(result)}: recorded and live`}
      data-testid="replay-compare"
      data-index={result.index}
    >
      <h3 className="replay-compare-head">
        {resultName(result)}{' '}
        <span className={`chip replay-${verdictText(result)}`}>{verdictText(result)}</span>
      </h3>
      <div className="replay-images">
        <figure>
          {result.keyframeUrl ? (
            <a href={result.keyframeUrl} target="_blank" rel="noreferrer">
              <img src={result.keyframeUrl} alt="Recorded keyframe" data-testid="replay-keyframe" />
            </a>
          ) : (
            <div className="replay-noimage">No keyframe</div>
          )}
          <figcaption>Recorded</figcaption>
        </figure>
        <figure>
          {result.screenshotUrl ? (
            <a href={result.screenshotUrl} target="_blank" rel="noreferrer">
              <img src={result.screenshotUrl} alt="Live screen" data-testid="replay-screenshot" />
            </a>
          ) : (
            <div className="replay-noimage">
              {result.ok
                ? 'Matches (not saved)'
                : isRunning
                  ? 'Shown when the replay ends'
                  : 'No screenshot'}
            </div>
          )}
          <figcaption>Live</figcaption>
        </figure>
      </div>
      <dl className="replay-facts">
        <dt>Screen difference</dt>
        <dd>{screenDiffText(result.screenDiff)}</dd>
        {result.elementMatch !== null && (
          <>
            <dt>Recorded element</dt>
            <dd data-testid="replay-recorded-element">{elementLabel(result.recordedElement)}</dd>
            <dt>Live element</dt>
            <dd data-testid="replay-live-element">{elementLabel(result.liveElement)}</dd>
          </>
        )}
        {result.note && (
          <>
            <dt>Note</dt>
            <dd data-testid="replay-note">{result.note}</dd>
          </>
        )}
      </dl>
    </section>
  );
}

// The panel; loads the recording's replay status when it mounts.
export function ReplayPanel({ recording, onSelectStep }: ReplayPanelProps) {
  const id = recording.id;
  const isOurs = useReplayStore((s) => replaySelectors.isFor(s, id));
  const status = useReplayStore((s) => (isOurs ? s.status : null));
  const loadStatus = useReplayStore((s) => (isOurs ? s.loadStatus : 'idle'));
  const busy = useReplayStore((s) => s.busy);
  const error = useReplayStore((s) => (isOurs ? s.error : null));
  const speed = useReplayStore((s) => s.speed);
  const results = useReplayStore((s) => (isOurs ? replaySelectors.results(s) : EMPTY));
  const selected = useReplayStore((s) => (isOurs ? replaySelectors.selected(s) : null));
  const store = useReplayStore.getState;

  useEffect(() => {
    void useReplayStore.getState().load(id);
  }, [id]);

  // a step chosen in the list (after the panel opened) shows its result side by side
  const selectedStepId = useReviewStore((s) => s.selectedStepId);
  const shownStep = useRef(selectedStepId);
  useEffect(() => {
    if (selectedStepId === shownStep.current) {
      return;
    }
    shownStep.current = selectedStepId;
    const r = replaySelectors
      .results(useReplayStore.getState())
      .find((x) => x.stepId !== null && x.stepId === selectedStepId);
    if (r) {
      useReplayStore.getState().select(r.index);
    }
  }, [selectedStepId]);

  if (!status) {
    return (
      <div className="panel-section replay-panel" data-testid="replay-panel">
        {loadStatus === 'error' && error ? (
          <ErrorNotice error={error} title="Replay status unavailable" testId="replay-error" />
        ) : (
          <p className="loading">Loading…</p>
        )}
      </div>
    );
  }
  const report = status.report;
  const running = status.running;
  const progress = replaySelectors.progress({ status });
  const shownError = error ?? status.error;
  const first = report?.firstDivergent ?? null;
  return (
    <div className="panel-section replay-panel" data-testid="replay-panel">
      {status.display === '' ? (
        <p className="muted replay-off" data-testid="replay-off">
          Replay is off: no replay display is set. Name the X display of a virtual desktop that
          shows the recording&apos;s start state in <a href="#/settings">Settings</a> to replay its
          steps there.
        </p>
      ) : (
        <>
          <p className="muted replay-intro">
            Drives the steps on <code>{status.display}</code>, which must show the recording&apos;s
            start state, and compares each step&apos;s screen and element with the recording.
          </p>
          <div className="replay-head">
            <select
              className="input replay-speed"
              aria-label="Pace"
              value={speed}
              disabled={running}
              onChange={(e) => store().setSpeed(Number(e.target.value))}
              data-testid="replay-speed"
            >
              {REPLAY_SPEEDS.map((v) => (
                <option key={v} value={v}>
                  {speedLabel(v)}
                </option>
              ))}
            </select>
            {running ? (
              <button
                type="button"
                className="btn"
                disabled={busy !== null}
                onClick={() => void store().cancel(id)}
                data-testid="replay-cancel"
              >
                {busy === 'cancelling' ? 'Cancelling…' : 'Cancel'}
              </button>
            ) : (
              <button
                type="button"
                className="btn btn-primary"
                disabled={busy !== null || status.busyWith !== null}
                onClick={() => void store().start(id)}
                title={
                  status.busyWith
                    ? 'Another recording is being replayed: one replay runs at a time'
                    : undefined
                }
                data-testid="replay-start"
              >
                {busy === 'starting' ? 'Starting…' : `Replay on ${status.display}`}
              </button>
            )}
          </div>
        </>
      )}
      <div role="status" aria-live="polite" className="replay-status" data-testid="replay-status">
        {progress
          ? `Replaying… ${progress.done}/${progress.total || '?'}`
          : status.busyWith
            ? 'Another recording is being replayed.'
            : ''}
      </div>
      {shownError && (
        <ErrorNotice
          error={shownError}
          title="The replay did not run"
          testId="replay-error"
          onDismiss={error ? () => useReplayStore.setState({ error: null }) : undefined}
        />
      )}
      {report && !running && (
        <div className="replay-summary" data-testid="replay-summary">
          <div>
            <strong data-testid="replay-score">Score {(report.score * 100).toFixed(0)} %</strong>{' '}
            <span className="muted">
              ({report.steps.filter((r) => r.ok).length} of {report.stepCount + 1} results match)
            </span>
          </div>
          <div data-testid="replay-first-divergent">
            {first === null
              ? 'Every step matches.'
              : `First divergence: ${resultName({ kind: first >= report.stepCount ? 'end' : 'step', index: first })}`}
          </div>
          {report.stopped && (
            <div className="replay-stopped">
              Stopped at step {report.stopped.stepIndex + 1}:{' '}
              {STOP_REASONS[report.stopped.reason] ?? report.stopped.message}
            </div>
          )}
          {report.warnings.map((w) => (
            <div key={w} className="muted small">
              ⚠ {w}
            </div>
          ))}
          <div className="muted small">
            {new Date(report.startedAt).toLocaleString()} on {report.display ?? '?'}
          </div>
        </div>
      )}
      {selected && <Comparison result={selected} isRunning={running} />}
      {results.length > 0 && (
        <ol className="replay-results" aria-label="Replay results">
          {results.map((r) => (
            <li key={`${r.kind}-${r.index}`}>
              <button
                type="button"
                className={`replay-result${selected?.index === r.index ? ' is-selected' : ''}`}
                aria-pressed={selected?.index === r.index}
                onClick={() => {
                  store().select(r.index);
                  const step = r.stepId
                    ? recording.steps.find((s) => s.id === r.stepId)
                    : undefined;
                  if (step) {
                    onSelectStep(step.id);
                  }
                }}
                data-testid="replay-result"
                data-index={r.index}
                data-ok={r.ok}
              >
                <span className="replay-result-name">{resultName(r)}</span>
                <span className={`chip replay-${verdictText(r)}`}>{verdictText(r)}</span>
                <span className="replay-result-fact" title="Screen difference">
                  screen {screenDiffText(r.screenDiff)}
                </span>
                <span className="replay-result-fact" title="Element under the action point">
                  element {elementText(r)}
                </span>
              </button>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
