// One step in the step list: keyframe thumbnail with overlay, label, code, element and window.
import { memo } from 'react';
import type { StepDto } from '../../shared/contract';
import type { ScreenInfo } from '../../shared/domain';
import { stepOverlay, type SizePx } from '../lib/overlay';
import { formatClockSec } from '../lib/time';
import { KeyframeOverlay } from './KeyframeOverlay';
import { KindChip, MarkChip } from './StatusChip';

/** Props of {@link StepCard}. */
export type StepCardProps = {
  step: StepDto;
  /** Video time of the step, s. */
  videoSec: number;
  screen: Pick<ScreenInfo, 'width' | 'height'>;
  image: SizePx;
  isSelected: boolean;
  /** A label typed but not yet saved (shown instead of the step's label). */
  labelDraft: string | undefined;
  onSelect: (stepId: string) => void;
  /** The step's result in the last replay (docs/replay.md §6): true ok, false diverges;
   * undefined when it was not replayed. */
  replayOk?: boolean;
  /** The step was masked (a password field): not replayed, not scored. */
  replayMasked?: boolean;
  /** What the replay badge's tooltip says (screen difference, element). */
  replayTitle?: string;
};

// The element under the pointer as `role "name"` (innermost first).
export function elementText(element: StepDto['element']): string | null {
  if (!element || element.length === 0) {
    return null;
  }
  // outermost ancestor first, the element itself last
  const own = element[element.length - 1];
  if (!own) {
    return null;
  }
  return `${own.role}${own.name ? ` “${own.name}”` : ''}`;
}

function StepCardImpl({
  step,
  videoSec,
  screen,
  image,
  isSelected,
  labelDraft,
  onSelect,
  replayOk,
  replayMasked,
  replayTitle,
}: StepCardProps) {
  const label = labelDraft ?? step.label;
  const element = elementText(step.element);
  return (
    <li
      role="option"
      aria-selected={isSelected}
      tabIndex={isSelected ? 0 : -1}
      id={`step-${step.id}`}
      className={`step-card${isSelected ? ' is-selected' : ''}${step.mark ? ` mark-${step.mark}` : ''}`}
      onClick={() => onSelect(step.id)}
      data-testid="step-card"
      data-step-id={step.id}
    >
      <div className="step-thumb">
        <KeyframeOverlay
          src={step.keyframeUrl}
          image={image}
          model={stepOverlay(step, screen)}
          isCompact
          alt={`Keyframe of step ${step.index + 1}`}
        />
      </div>
      <div className="step-body">
        <div className="step-head">
          <span className="step-num">{step.index + 1}</span>
          <KindChip kind={step.kind} />
          {step.mark && <MarkChip mark={step.mark} />}
          {step.isEdited && (
            <span className="chip chip-edited" title="Changed by an edit">
              edited
            </span>
          )}
          {replayOk !== undefined && (
            <span
              className={`chip step-replay-badge ${
                replayMasked ? 'replay-masked' : replayOk ? 'replay-ok' : 'replay-diverges'
              }`}
              title={replayTitle}
              data-testid="step-replay-badge"
              data-ok={replayOk}
              data-masked={replayMasked === true}
            >
              {replayMasked ? 'masked: not replayed' : replayOk ? 'replay ok' : 'diverges'}
            </span>
          )}
          <span className="step-time">{formatClockSec(videoSec)}</span>
        </div>
        <div className={`step-label${label ? '' : ' is-empty'}`} data-testid="step-label">
          {label || 'No label'}
        </div>
        <code className="step-code" title={step.code}>
          {step.code || '—'}
        </code>
        {(element || step.windowTitle) && (
          <div className="step-meta">
            {element && (
              <span className="meta-element" title={element}>
                <span className="meta-tag">el</span>
                {element}
              </span>
            )}
            {step.windowTitle && (
              <span className="meta-window" title={step.windowTitle}>
                <span className="meta-tag">win</span>
                {step.windowTitle}
              </span>
            )}
          </div>
        )}
        {step.diagnostics.length > 0 && (
          <div className="step-diag" title={step.diagnostics.join('\n')}>
            ⚠ {step.diagnostics.length} note{step.diagnostics.length > 1 ? 's' : ''}
          </div>
        )}
      </div>
    </li>
  );
}

/** A step of the list (memoised: only changed steps re-render). */
export const StepCard = memo(StepCardImpl);
