// The step list: the steps as cards, virtualised beyond 150 steps (only the cards near the
// viewport are in the DOM, so a recording of thousands of steps opens fast); the selected one is
// kept in view. Cards differ in height: each rendered card is measured, the others are estimated
// from the measured ones.
import { useEffect, useEffectEvent, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { RefObject } from 'react';
import type { RecordingDto } from '../../shared/contract';
import { useElementSize } from '../hooks/use-element-size';
import { stepVideoTimeSec } from '../lib/time';
import { rowOffsets, variableRange } from '../lib/virtual';
import {
  elementText,
  replaySelectors,
  screenDiffText,
  useReplayStore,
  verdictText,
  type ReplayResultDto,
} from '../store/replay';
import { StepCard } from './StepCard';

/** Props of {@link StepList}. */
export type StepListProps = {
  recording: RecordingDto;
  selectedStepId: string | null;
  labelDrafts: Record<string, string>;
  onSelect: (stepId: string) => void;
  /** The element that scrolls the list (the list is its only content). */
  scrollerRef: RefObject<HTMLElement | null>;
};

/** Padding around the cards and the gap between them, px (as in styles.css `.step-list`). */
const LIST_PAD_PX = 8;
const CARD_GAP_PX = 6;
/** Height assumed for a card not yet measured while none is, px. */
const ESTIMATED_CARD_PX = 96;
/** Cards rendered beyond each edge of the viewport, px. */
const OVERSCAN_PX = 900;
/** Lists up to this long render every card (cheap, and every card stays findable in the page,
 * e.g. by the browser's find-in-page); longer ones only those near the viewport. */
const RENDER_ALL_UP_TO = 150;

const NO_REPLAY: ReadonlyMap<string, ReplayResultDto> = new Map();

// The tooltip of a step's replay badge.
function replayTitle(r: ReplayResultDto): string {
  return (
    `Replay: ${verdictText(r)}; screen difference ${screenDiffText(r.screenDiff)}; ` +
    `element ${elementText(r)}${r.note ? `; ${r.note}` : ''}`
  );
}

// The list of steps of a recording.
export function StepList({
  recording,
  selectedStepId,
  labelDrafts,
  onSelect,
  scrollerRef,
}: StepListProps) {
  const listRef = useRef<HTMLOListElement>(null);
  const videoStartMs = recording.video?.startMs ?? 0;
  const width = recording.video?.width ?? recording.screen.width;
  const height = recording.video?.height ?? recording.screen.height;
  const image = useMemo(() => ({ width, height }), [width, height]);
  const steps = recording.steps;
  // each step's result in the replay under way or the last one (docs/replay.md §6)
  const replayed = useReplayStore((s) =>
    replaySelectors.isFor(s, recording.id) ? replaySelectors.byStep(s) : NO_REPLAY,
  );

  // measured card heights by step id, and the scroller's position and size
  const [measured, setMeasured] = useState<ReadonlyMap<string, number>>(() => new Map());
  const [scrollTop, setScrollTop] = useState(0);
  const viewport = useElementSize(scrollerRef).height;

  useEffect(() => {
    const scroller = scrollerRef.current;
    if (!scroller) {
      return;
    }
    const onScroll = () => setScrollTop(scroller.scrollTop);
    scroller.addEventListener('scroll', onScroll, { passive: true });
    return () => scroller.removeEventListener('scroll', onScroll);
  }, [scrollerRef]);

  const offsets = useMemo(() => {
    let sum = 0;
    for (const h of measured.values()) {
      sum += h;
    }
    const estimate = measured.size > 0 ? sum / measured.size : ESTIMATED_CARD_PX;
    return rowOffsets(
      steps.map((s) => measured.get(s.id) ?? estimate),
      CARD_GAP_PX,
    );
  }, [steps, measured]);
  const heightOf = (i: number) =>
    (offsets[i + 1] ?? 0) - (offsets[i] ?? 0) - (i < steps.length - 1 ? CARD_GAP_PX : 0);

  const range =
    steps.length <= RENDER_ALL_UP_TO
      ? { start: 0, end: steps.length }
      : variableRange({
          offsets,
          scrollTopPx: scrollTop - LIST_PAD_PX,
          viewportPx: viewport || window.innerHeight,
          overscanPx: OVERSCAN_PX,
        });

  // measure the rendered cards (again whenever one changes size, e.g. a longer label)
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list) {
      return;
    }
    const observer = new ResizeObserver((entries) => {
      setMeasured((prev) => {
        let next: Map<string, number> | null = null;
        for (const entry of entries) {
          const id = (entry.target as HTMLElement).dataset.stepId;
          const h = entry.borderBoxSize[0]?.blockSize ?? entry.contentRect.height;
          if (id !== undefined && h > 0 && prev.get(id) !== h) {
            next ??= new Map(prev);
            next.set(id, h);
          }
        }
        return next ?? prev;
      });
    });
    for (const el of list.querySelectorAll<HTMLElement>('[data-step-id]')) {
      observer.observe(el);
    }
    return () => observer.disconnect();
  }, [steps, range.start, range.end]);

  // keep the selected card in view: scroll to its (estimated) place when it is not rendered, and
  // once it is, make it fully visible
  const pendingReveal = useRef<string | null>(null);
  const reveal = useEffectEvent((stepId: string) => {
    const scroller = scrollerRef.current;
    const el = listRef.current?.querySelector<HTMLElement>(
      `[data-step-id="${CSS.escape(stepId)}"]`,
    );
    if (el) {
      el.scrollIntoView({ block: 'nearest' });
      pendingReveal.current = null;
      return;
    }
    const i = steps.findIndex((s) => s.id === stepId);
    if (!scroller || i < 0) {
      pendingReveal.current = null;
      return;
    }
    pendingReveal.current = stepId;
    const top = LIST_PAD_PX + (offsets[i] ?? 0);
    const bottom = top + heightOf(i);
    if (top < scroller.scrollTop) {
      scroller.scrollTop = top;
    } else if (bottom > scroller.scrollTop + scroller.clientHeight) {
      scroller.scrollTop = bottom - scroller.clientHeight;
    }
    setScrollTop(scroller.scrollTop);
  });
  useEffect(() => {
    if (selectedStepId) {
      reveal(selectedStepId);
    }
  }, [selectedStepId]);
  useLayoutEffect(() => {
    const pending = pendingReveal.current;
    if (pending !== null && pending === selectedStepId) {
      const el = listRef.current?.querySelector<HTMLElement>(
        `[data-step-id="${CSS.escape(pending)}"]`,
      );
      if (el) {
        pendingReveal.current = null;
        el.scrollIntoView({ block: 'nearest' });
      }
    }
  });

  if (steps.length === 0) {
    return <div className="empty-state">No steps. Undo or clear the trim to get them back.</div>;
  }
  const last = steps.length - 1;
  const renderedBottom = (offsets[range.end - 1] ?? 0) + heightOf(range.end - 1);
  return (
    <ol
      className="step-list"
      role="listbox"
      aria-label="Steps"
      aria-activedescendant={selectedStepId ? `step-${selectedStepId}` : undefined}
      ref={listRef}
      style={{
        paddingTop: LIST_PAD_PX + (offsets[range.start] ?? 0),
        paddingBottom: LIST_PAD_PX + (offsets[last + 1] ?? 0) - renderedBottom,
      }}
      data-testid="step-list"
    >
      {steps.slice(range.start, range.end).map((step) => (
        <StepCard
          key={step.id}
          step={step}
          videoSec={stepVideoTimeSec(step, videoStartMs)}
          screen={recording.screen}
          image={image}
          isSelected={step.id === selectedStepId}
          labelDraft={labelDrafts[step.id]}
          onSelect={onSelect}
          replayOk={replayed.get(step.id)?.ok}
          replayMasked={replayed.get(step.id)?.masked}
          replayTitle={replayed.has(step.id) ? replayTitle(replayed.get(step.id)!) : undefined}
        />
      ))}
    </ol>
  );
}
