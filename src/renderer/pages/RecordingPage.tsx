// Recording page: video synchronised with the step list, the selected step in full with its
// edits, and side panels for the task, labels, review and accessibility snapshot.
import { useCallback, useEffect, useEffectEvent, useRef, useState } from 'react';
import type { StepEdit } from '../../shared/contract';
import type { PiiFinding } from '../../shared/domain';
import { AxTreeViewer } from '../components/AxTreeViewer';
import { ExportDialog } from '../components/ExportDialog';
import { LabelsPanel } from '../components/LabelsPanel';
import { PrivacyPanel } from '../components/PrivacyPanel';
import { ReplayPanel } from '../components/ReplayPanel';
import { ReviewLockDialog } from '../components/ReviewLockDialog';
import { ReviewPanel } from '../components/ReviewPanel';
import { SaveIndicator } from '../components/SaveIndicator';
import { StepDetail } from '../components/StepDetail';
import { CotPanel } from '../components/CotPanel';
import { StepList } from '../components/StepList';
import { ReviewChip } from '../components/StatusChip';
import { TaskPanel } from '../components/TaskPanel';
import { UploadButton } from '../components/UploadButton';
import { SubmitToTeamButton } from './team/SubmitToTeamButton';
import { TeamReviewPanel } from './team/TeamReviewPanel';
import { VideoPlayer, type VideoPlayerHandle } from '../components/VideoPlayer';
import { useApiEvent } from '../hooks/use-api-event';
import { usePageExitFlush } from '../hooks/use-page-exit';
import { osLabel } from '../lib/library-query';
import { findingTarget } from '../lib/privacy-target';
import { SHORTCUT_HELP, shortcutFor } from '../lib/shortcuts';
import { formatDurationMs, stepIndexAtVideoTime, stepVideoTimeSec } from '../lib/time';
import { useExportStore } from '../store/export';
import { useReplayStore } from '../store/replay';
import { reviewSelectors, useReviewStore } from '../store/review';

type SideTab = 'task' | 'review' | 'ax' | 'privacy' | 'replay';

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) {
    return false;
  }
  const tag = target.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || target.isContentEditable;
}

// The recording page for `id`.
export function RecordingPage({ id }: { id: string }) {
  const recording = useReviewStore(reviewSelectors.recording);
  const loadStatus = useReviewStore((s) => s.loadStatus);
  const loadError = useReviewStore((s) => s.loadError);
  const selectedStepId = useReviewStore((s) => s.selectedStepId);
  const selectedStep = useReviewStore(reviewSelectors.selectedStep);
  const saveState = useReviewStore((s) => s.saveState);
  const saveError = useReviewStore((s) => s.saveError);
  const labelDrafts = useReviewStore((s) => s.labelDrafts);
  const taskText = useReviewStore(reviewSelectors.taskText);
  const descriptionText = useReviewStore(reviewSelectors.descriptionText);
  const labels = useReviewStore(reviewSelectors.labels);
  const canUndo = useReviewStore(reviewSelectors.canUndo);
  const canRedo = useReviewStore(reviewSelectors.canRedo);
  const needsKeyframes = useReviewStore(reviewSelectors.needsKeyframes);
  const missingKeyframes = useReviewStore(reviewSelectors.missingKeyframes);
  const keyframesStatus = useReviewStore((s) => s.keyframesStatus);
  const keyframesError = useReviewStore((s) => s.keyframesError);
  const reviewBusy = useReviewStore((s) => s.reviewBusy);
  const reviewError = useReviewStore((s) => s.reviewError);
  const lockPrompt = useReviewStore((s) => s.lockPrompt);
  const labelText = useReviewStore((s) => {
    const step = reviewSelectors.selectedStep(s);
    return step ? reviewSelectors.labelText(s, step) : '';
  });
  const actions = useReviewStore.getState();
  const playerRef = useRef<VideoPlayerHandle>(null);
  const stepsPaneRef = useRef<HTMLElement>(null);
  const [tab, setTab] = useState<SideTab>('task');
  const [isExportOpen, setExportOpen] = useState(false);

  useEffect(() => {
    const s = useReviewStore.getState();
    // a load of this recording already in flight (started as the app loaded) is waited for
    if (s.recordingId !== id || s.loadStatus !== 'loading') {
      void s.open(id);
    }
    return () => useReviewStore.getState().flushDrafts();
  }, [id]);

  // the last replay's results show as badges in the step list from the start (docs/replay.md §6)
  useEffect(() => {
    void useReplayStore.getState().load(id);
    return () => useReplayStore.getState().clear();
  }, [id]);

  usePageExitFlush();

  useApiEvent('recordings:changed', (e) => {
    void useReviewStore.getState().refreshIfIdle(e.id);
  });
  // keyframes are computed in the background (after import, recording, edits, or on opening)
  useApiEvent('keyframes:progress', (e) => useReviewStore.getState().keyframesProgress(e));

  // stable (reads the store when called) so memoised step cards do not re-render
  const seekToStep = useCallback((stepId: string) => {
    const rec = reviewSelectors.recording(useReviewStore.getState());
    const step = rec?.steps.find((x) => x.id === stepId);
    if (rec?.video && step) {
      playerRef.current?.seek(stepVideoTimeSec(step, rec.video.startMs));
    }
  }, []);

  const selectAndSeek = useCallback(
    (stepId: string) => {
      useReviewStore.getState().selectStep(stepId);
      seekToStep(stepId);
    },
    [seekToStep],
  );

  // a PII finding: select its step and seek to its moment (the task text has neither: its tab)
  const jumpToFinding = useCallback((finding: PiiFinding) => {
    const rec = reviewSelectors.recording(useReviewStore.getState());
    if (!rec) {
      return;
    }
    const target = findingTarget(finding, rec);
    if (target.stepId !== null) {
      useReviewStore.getState().selectStep(target.stepId);
    }
    if (target.videoSec !== null) {
      playerRef.current?.seek(target.videoSec);
    }
    if (target.stepId === null && target.videoSec === null) {
      setTab('task');
    }
  }, []);

  const onTime = (videoSec: number, isPlaying: boolean) => {
    if (!isPlaying || !recording?.video) {
      return;
    }
    // while playing, the selection follows the video
    const i = stepIndexAtVideoTime(recording.steps, videoSec, recording.video.startMs);
    const step = recording.steps[i];
    if (step && step.id !== selectedStepId) {
      actions.selectStep(step.id);
    }
  };

  const onEdit = (edit: StepEdit) => {
    void actions.applyEdit(edit);
  };

  const onKeyDown = useEffectEvent((e: KeyboardEvent) => {
    if (document.querySelector('[aria-modal="true"]')) {
      return;
    }
    const target = e.target;
    const isButton =
      target instanceof HTMLElement && (target.tagName === 'BUTTON' || target.tagName === 'A');
    const command = shortcutFor({
      key: e.key,
      ctrlKey: e.ctrlKey,
      metaKey: e.metaKey,
      shiftKey: e.shiftKey,
      altKey: e.altKey,
      // Space and Delete on a focused button belong to the button
      isEditableTarget: isEditable(target) || (isButton && (e.key === ' ' || e.key === 'Enter')),
    });
    if (!command) {
      return;
    }
    e.preventDefault();
    const s = useReviewStore.getState();
    switch (command) {
      case 'undo':
        void s.undo();
        break;
      case 'redo':
        void s.redo();
        break;
      case 'prev-step':
      case 'next-step': {
        s.moveSelection(command === 'prev-step' ? -1 : 1);
        const now = useReviewStore.getState().selectedStepId;
        if (now) {
          seekToStep(now);
        }
        break;
      }
      case 'delete-step':
        if (s.selectedStepId) {
          void s.applyEdit({ op: 'delete', stepId: s.selectedStepId });
        }
        break;
      case 'toggle-play':
        playerRef.current?.togglePlay();
        break;
    }
  });

  useEffect(() => {
    const listener = (e: KeyboardEvent) => onKeyDown(e);
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);

  if (loadStatus === 'error') {
    return (
      <div className="page">
        <a href="#/" className="back-link">
          ← Library
        </a>
        <div className="notice notice-bad" role="alert">
          {loadError}
        </div>
      </div>
    );
  }
  if (!recording || recording.id !== id) {
    return (
      <div className="page">
        <div className="loading">Loading recording…</div>
      </div>
    );
  }

  return (
    <div className="page recording-page" data-testid="recording-page">
      <header className="rec-head">
        <a href="#/" className="back-link" aria-label="Back to the library">
          ← Library
        </a>
        <div className="rec-title">
          <h1 title={recording.task}>{recording.task || 'Untitled recording'}</h1>
          <div className="rec-sub muted">
            {osLabel(recording.platform.os)} · {recording.screen.width}×{recording.screen.height} ·{' '}
            {formatDurationMs(recording.durationMs)} · {recording.steps.length} steps
          </div>
        </div>
        <ReviewChip status={recording.reviewStatus} />
        <SaveIndicator state={saveState} error={saveError} onRetry={() => void actions.open(id)} />
        <div className="toolbar">
          <button
            type="button"
            className="btn btn-icon"
            disabled={!canUndo}
            onClick={() => void actions.undo()}
            title="Undo (Ctrl+Z)"
            aria-label="Undo"
            data-testid="undo"
          >
            ↶
          </button>
          <button
            type="button"
            className="btn btn-icon"
            disabled={!canRedo}
            onClick={() => void actions.redo()}
            title="Redo (Ctrl+Shift+Z)"
            aria-label="Redo"
            data-testid="redo"
          >
            ↷
          </button>
          {recording.steps.length > 0 && (
            <button
              type="button"
              className="btn"
              disabled={keyframesStatus === 'computing'}
              onClick={() => void actions.computeKeyframes()}
              title="Pick one keyframe per step from the video again (they are computed by themselves after import, recording and edits)"
              data-testid="compute-keyframes"
            >
              {keyframesStatus === 'computing'
                ? 'Computing keyframes…'
                : needsKeyframes
                  ? `Compute keyframes (${missingKeyframes})`
                  : 'Recompute keyframes'}
            </button>
          )}
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => {
              actions.flushDrafts();
              useExportStore.getState().prepare([recording.id]);
              setExportOpen(true);
            }}
            data-testid="recording-export"
          >
            Export…
          </button>
          <UploadButton getIds={() => [recording.id]} />
          <SubmitToTeamButton recordingId={recording.id} beforeSubmit={actions.flushDrafts} />
        </div>
      </header>
      <TeamReviewPanel recordingId={recording.id} beforeSend={actions.flushDrafts} />
      {recording.skippedEdits.length > 0 && (
        <div className="notice notice-warn" role="status">
          {recording.skippedEdits.length} earlier edit
          {recording.skippedEdits.length === 1 ? ' no longer fits' : 's no longer fit'} the steps
          and
          {recording.skippedEdits.length === 1 ? ' is' : ' are'} not applied:{' '}
          {recording.skippedEdits
            .slice(0, 3)
            .map((e) => `${e.op} (${e.message})`)
            .join('; ')}
        </div>
      )}
      {keyframesError && (
        <div className="notice notice-bad" role="alert">
          Keyframes: {keyframesError}
        </div>
      )}

      <div className="rec-body">
        <aside className="rec-steps" aria-label="Steps" ref={stepsPaneRef}>
          <StepList
            recording={recording}
            selectedStepId={selectedStepId}
            labelDrafts={labelDrafts}
            onSelect={selectAndSeek}
            scrollerRef={stepsPaneRef}
          />
        </aside>

        <main className="rec-main">
          <VideoPlayer
            ref={playerRef}
            recording={recording}
            selectedStepId={selectedStepId}
            onTime={onTime}
            onStepMarker={selectAndSeek}
            onReady={() => {
              const current = useReviewStore.getState().selectedStepId;
              if (current) {
                seekToStep(current);
              }
            }}
            onTrim={(startMs, endMs) => onEdit({ op: 'trim', startMs, endMs })}
          />
          {selectedStep ? (
            <StepDetail
              key={selectedStep.id}
              recording={recording}
              step={selectedStep}
              labelText={labelText}
              onLabelChange={(text) => actions.setLabelDraft(selectedStep.id, text)}
              onFlush={actions.flushDrafts}
              onEdit={onEdit}
            />
          ) : (
            <div className="empty-state">Select a step.</div>
          )}
          <CotPanel recordingId={recording.id} stepId={selectedStep?.id ?? null} />
          <div className="shortcut-help muted">
            {SHORTCUT_HELP.map((h) => (
              <span key={h.keys}>
                <kbd>{h.keys}</kbd> {h.what}
              </span>
            ))}
          </div>
        </main>

        <aside className="rec-side">
          <div className="tabs" role="tablist" aria-label="Panels">
            {(
              [
                ['task', 'Task & labels'],
                ['review', 'Review'],
                ['ax', 'Accessibility'],
                ['privacy', 'Privacy'],
                ['replay', 'Replay'],
              ] as const
            ).map(([key, text]) => (
              <button
                key={key}
                type="button"
                role="tab"
                aria-selected={tab === key}
                className={`tab${tab === key ? ' is-active' : ''}`}
                onClick={() => setTab(key)}
                data-testid={`tab-${key}`}
              >
                {text}
              </button>
            ))}
          </div>
          <div className="tab-panel" role="tabpanel">
            {tab === 'task' && (
              <>
                <TaskPanel
                  task={taskText}
                  description={descriptionText}
                  onChange={actions.setTaskDraft}
                  onFlush={actions.flushDrafts}
                />
                <h3 className="section-title">Task labels</h3>
                {labels && <LabelsPanel labels={labels} onChange={actions.setLabelsDraft} />}
              </>
            )}
            {tab === 'review' && (
              <ReviewPanel
                recording={recording}
                isBusy={reviewBusy}
                error={reviewError}
                onSetStatus={(input) => void actions.setReviewStatus(input)}
              />
            )}
            {tab === 'ax' &&
              (selectedStep ? (
                <AxTreeViewer
                  key={selectedStep.id}
                  stepId={selectedStep.id}
                  element={selectedStep.element}
                  videoStartMs={recording.video?.startMs ?? 0}
                />
              ) : (
                <p className="muted">Select a step.</p>
              ))}
            {tab === 'privacy' && <PrivacyPanel recording={recording} onJump={jumpToFinding} />}
            {tab === 'replay' && <ReplayPanel recording={recording} onSelectStep={selectAndSeek} />}
          </div>
        </aside>
      </div>

      {isExportOpen && <ExportDialog onClose={() => setExportOpen(false)} />}
      {lockPrompt && (
        <ReviewLockDialog
          onConfirm={actions.confirmLockedEdit}
          onCancel={actions.cancelLockedEdit}
        />
      )}
    </div>
  );
}
