// The step list: every step as a card; the selected one is kept in view.
import { useEffect, useMemo, useRef } from 'react';
import type { RecordingDto } from '../../shared/contract';
import { stepVideoTimeSec } from '../lib/time';
import { StepCard } from './StepCard';

/** Props of {@link StepList}. */
export type StepListProps = {
  recording: RecordingDto;
  selectedStepId: string | null;
  labelDrafts: Record<string, string>;
  onSelect: (stepId: string) => void;
};

// The list of steps of a recording.
export function StepList({ recording, selectedStepId, labelDrafts, onSelect }: StepListProps) {
  const listRef = useRef<HTMLOListElement>(null);
  const videoStartMs = recording.video?.startMs ?? 0;
  const width = recording.video?.width ?? recording.screen.width;
  const height = recording.video?.height ?? recording.screen.height;
  const image = useMemo(() => ({ width, height }), [width, height]);

  useEffect(() => {
    if (!selectedStepId || !listRef.current) {
      return;
    }
    const el = listRef.current.querySelector<HTMLElement>(
      `[data-step-id="${CSS.escape(selectedStepId)}"]`,
    );
    el?.scrollIntoView({ block: 'nearest' });
  }, [selectedStepId]);

  if (recording.steps.length === 0) {
    return <div className="empty-state">No steps. Undo or clear the trim to get them back.</div>;
  }
  return (
    <ol
      className="step-list"
      role="listbox"
      aria-label="Steps"
      aria-activedescendant={selectedStepId ? `step-${selectedStepId}` : undefined}
      ref={listRef}
      data-testid="step-list"
    >
      {recording.steps.map((step) => (
        <StepCard
          key={step.id}
          step={step}
          videoSec={stepVideoTimeSec(step, videoStartMs)}
          screen={recording.screen}
          image={image}
          isSelected={step.id === selectedStepId}
          labelDraft={labelDrafts[step.id]}
          onSelect={onSelect}
        />
      ))}
    </ol>
  );
}
