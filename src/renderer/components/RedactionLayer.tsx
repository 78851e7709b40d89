// Box redaction on the video (issue 14, item 3): a layer over the picture that blacks out the
// recording's active box redactions, excluded intervals and excluded windows' rectangles (issue
// 26, item 6) while the playhead is inside them (so
// the reviewer sees what will leave; the library's video is never changed), and in "Redact area"
// mode takes a dragged rectangle; below the controls, the mode's controls: the time range
// (default: the frame shown to one second later; "Start = now" / "End = now" or typed seconds)
// and Apply, which sends an `edits:apply` of a `redact-box` edit (undone with the usual Undo);
// docs/privacy.md §4.
import { useState, type PointerEvent, type RefObject } from 'react';
import type { RecordingDto } from '../../shared/contract';
import { useElementSize } from '../hooks/use-element-size';
import {
  boxesAt,
  covers,
  draftProblem,
  dragToVideoBox,
  fittedRect,
  frameTimeMs,
  isExcludedAt,
  videoBoxToDisplay,
  type DisplayPoint,
  type DisplayRect,
  type VideoSize,
} from '../lib/redaction-box';
import { formatClockSec, recordingMsToVideoSec, videoSecToRecordingMs } from '../lib/time';
import { useRedactionStore } from '../store/redaction';
import { ErrorNotice } from './ErrorNotice';
import './redaction.css';

type Video = NonNullable<RecordingDto['video']>;

const px = (r: DisplayRect) => ({ left: r.left, top: r.top, width: r.width, height: r.height });

/** Props of {@link RedactionLayer}. */
export type RedactionLayerProps = {
  /** The video element the layer covers. */
  videoRef: RefObject<HTMLVideoElement | null>;
  video: Video;
  /** The video's intrinsic size once its metadata is loaded (null: the recording's size). */
  intrinsic: VideoSize | null;
  /** The playhead, s of video time. */
  currentSec: number;
};

// The layer over the video element.
export function RedactionLayer({ videoRef, video, intrinsic, currentSec }: RedactionLayerProps) {
  const size = useElementSize(videoRef);
  const boxes = useRedactionStore((s) => s.boxes);
  const excluded = useRedactionStore((s) => s.excluded);
  const regions = useRedactionStore((s) => s.regions);
  const draft = useRedactionStore((s) => s.draft);
  const [drag, setDrag] = useState<{ a: DisplayPoint; b: DisplayPoint } | null>(null);

  const pixels: VideoSize = { width: video.width, height: video.height };
  const picture = fittedRect(size, intrinsic && intrinsic.width > 0 ? intrinsic : pixels);
  const tMs = frameTimeMs(currentSec, video);
  const shown = boxesAt(boxes, tMs);
  const isExcluded = isExcludedAt(excluded, tMs);
  const shownRegions = regions.filter((r) => covers(r, tMs));
  const isDrawing = draft !== null;

  const at = (e: PointerEvent<HTMLDivElement>): DisplayPoint => {
    const r = e.currentTarget.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };

  return (
    <div
      className={`redaction-layer${isDrawing ? ' is-drawing' : ''}`}
      style={{ width: size.width, height: size.height }}
      data-testid="redaction-layer"
      onPointerDown={(e) => {
        if (!isDrawing || e.button !== 0) {
          return;
        }
        e.preventDefault();
        e.currentTarget.setPointerCapture(e.pointerId);
        const p = at(e);
        setDrag({ a: p, b: p });
      }}
      onPointerMove={(e) => {
        if (drag) {
          const p = at(e);
          setDrag((d) => (d ? { ...d, b: p } : d));
        }
      }}
      onPointerUp={(e) => {
        if (!drag) {
          return;
        }
        const box = dragToVideoBox(drag.a, at(e), picture, pixels);
        setDrag(null);
        if (box) {
          useRedactionStore.getState().setBox(box);
        }
      }}
      onPointerCancel={() => setDrag(null)}
    >
      {isExcluded && (
        <div
          className="redaction-excluded"
          style={px(picture)}
          data-testid="redaction-excluded"
          title="An excluded window had focus: these frames leave the machine blanked"
        >
          Excluded window
        </div>
      )}
      {shownRegions.map((r) => (
        <div
          key={`region-${r.startMs}-${r.box.x}-${r.box.y}-${r.box.width}-${r.box.height}`}
          className="redaction-box"
          style={px(videoBoxToDisplay(r.box, picture, pixels))}
          data-testid="redaction-region"
          title="An excluded window was here: blacked out in every export and upload"
        />
      ))}
      {shown.map((b) => (
        <div
          key={b.editId}
          className="redaction-box"
          style={px(videoBoxToDisplay(b.box, picture, pixels))}
          data-testid="redaction-box"
          data-edit-id={b.editId}
          title="Box redaction: blacked out in every export and upload"
        />
      ))}
      {draft?.box && !drag && (
        <div
          className="redaction-draft"
          style={px(videoBoxToDisplay(draft.box, picture, pixels))}
          data-testid="redact-draft"
        />
      )}
      {drag && (
        <div
          className="redaction-draft"
          style={{
            left: Math.min(drag.a.x, drag.b.x),
            top: Math.min(drag.a.y, drag.b.y),
            width: Math.abs(drag.b.x - drag.a.x),
            height: Math.abs(drag.b.y - drag.a.y),
          }}
        />
      )}
    </div>
  );
}

/** Props of {@link RedactAreaControls}. */
export type RedactAreaControlsProps = {
  recordingId: string;
  video: Video;
  currentSec: number;
};

// "Redact area" and, in that mode, the draft's range, Apply and Cancel.
export function RedactAreaControls({ recordingId, video, currentSec }: RedactAreaControlsProps) {
  const draft = useRedactionStore((s) => s.draft);
  const applying = useRedactionStore((s) => s.applying);
  const error = useRedactionStore((s) => s.error);
  const count = useRedactionStore((s) => (s.recordingId === recordingId ? s.boxes.length : 0));
  const store = useRedactionStore.getState;
  const nowMs = frameTimeMs(currentSec, video);
  const toSec = (ms: number) => Math.round(recordingMsToVideoSec(ms, video.startMs) * 1000) / 1000;
  const fromSec = (value: string): number | null => {
    const sec = Number(value);
    return value.trim() !== '' && Number.isFinite(sec) && sec >= 0
      ? videoSecToRecordingMs(sec, video.startMs)
      : null;
  };
  const problem = draft ? draftProblem(draft) : null;

  return (
    <div className="redact-controls" data-testid="redact-controls">
      <span className="muted">Privacy</span>
      {draft === null ? (
        <>
          <button
            type="button"
            className="btn btn-small"
            onClick={() => store().startDrawing(nowMs)}
            title="Drag a rectangle over the video to black it out over a time range in every export and upload (the recording keeps it)"
            data-testid="redact-area"
          >
            Redact area
          </button>
          {count > 0 && (
            <span className="muted" data-testid="redact-count">
              {count} box redaction{count === 1 ? '' : 's'} (black over the video)
            </span>
          )}
        </>
      ) : (
        <>
          <span className="redact-box-size mono" data-testid="redact-box-size">
            {draft.box
              ? `${draft.box.width}×${draft.box.height} px at ${draft.box.x},${draft.box.y}`
              : 'Drag over the video'}
          </span>
          <label className="redact-time">
            From
            <input
              type="number"
              className="input input-small"
              min={0}
              step={0.1}
              value={toSec(draft.startMs)}
              onChange={(e) => {
                const ms = fromSec(e.target.value);
                if (ms !== null) {
                  store().setStart(ms);
                }
              }}
              aria-label="Redaction start, seconds of video"
              data-testid="redact-start"
            />
          </label>
          <button
            type="button"
            className="btn btn-small btn-ghost"
            onClick={() => store().setStart(nowMs)}
            data-testid="redact-start-now"
          >
            Start = now
          </button>
          <label className="redact-time">
            to
            <input
              type="number"
              className="input input-small"
              min={0}
              step={0.1}
              value={toSec(draft.endMs)}
              onChange={(e) => {
                const ms = fromSec(e.target.value);
                if (ms !== null) {
                  store().setEnd(ms);
                }
              }}
              aria-label="Redaction end, seconds of video"
              data-testid="redact-end"
            />
          </label>
          <button
            type="button"
            className="btn btn-small btn-ghost"
            onClick={() => store().setEnd(nowMs)}
            data-testid="redact-end-now"
          >
            End = now
          </button>
          <span className="muted mono">
            {formatClockSec(toSec(draft.startMs))}–{formatClockSec(toSec(draft.endMs))}
          </span>
          <button
            type="button"
            className="btn btn-small btn-primary"
            disabled={problem !== null || applying}
            title={problem ?? 'Black out this box over this time range in every export and upload'}
            onClick={() => void store().apply(recordingId)}
            data-testid="redact-apply"
          >
            {applying ? 'Applying…' : 'Apply'}
          </button>
          <button
            type="button"
            className="btn btn-small btn-ghost"
            onClick={() => store().cancelDrawing()}
            data-testid="redact-cancel"
          >
            Cancel
          </button>
          {problem && (
            <span className="muted redact-problem" data-testid="redact-problem">
              {problem}
            </span>
          )}
        </>
      )}
      {error && (
        <ErrorNotice
          error={error}
          title="The box redaction failed"
          testId="redact-error"
          onDismiss={() => store().dismissError()}
        />
      )}
    </div>
  );
}
