// The recording's video with custom controls: play/pause, a scrubber with one marker per step,
// the trimmed-away parts shaded, and trim buttons. The page drives it through a handle (seek,
// toggle) and follows it through `onTime`. Over the picture, the redaction layer blacks out what
// leaves redacted and takes "Redact area" boxes (RedactionLayer.tsx).
import { memo, useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';
import type { RecordingDto, StepDto } from '../../shared/contract';
import {
  formatClockSec,
  recordingMsToVideoSec,
  stepVideoTimeSec,
  videoSecToRecordingMs,
} from '../lib/time';
import type { VideoSize } from '../lib/redaction-box';
import { useRedactionStore } from '../store/redaction';
import { RedactAreaControls, RedactionLayer } from './RedactionLayer';

/** What the page can do with the player. */
export type VideoPlayerHandle = {
  /** Moves the playhead to a video time, s. */
  seek: (videoSec: number) => void;
  /** Plays when paused, pauses when playing. */
  togglePlay: () => void;
};

/** Props of {@link VideoPlayer}. */
export type VideoPlayerProps = {
  recording: RecordingDto;
  selectedStepId: string | null;
  /** Called on every time update with the playhead (s) and whether it is playing. */
  onTime: (videoSec: number, isPlaying: boolean) => void;
  /** A step marker was clicked. */
  onStepMarker: (stepId: string) => void;
  /** The video's metadata is loaded (seeking works from now on). */
  onReady?: () => void;
  /** Trim change on the recording clock (null = untrimmed end). */
  onTrim: (startMs: number | null, endMs: number | null) => void;
  ref?: Ref<VideoPlayerHandle>;
};

/** Position of a video time on the scrubber, as a CSS percentage. */
function scrubberPct(sec: number, durationSec: number): string {
  return `${durationSec > 0 ? Math.min(100, Math.max(0, (sec / durationSec) * 100)) : 0}%`;
}

type StepMarkersProps = {
  steps: StepDto[];
  startMs: number;
  durationSec: number;
  selectedStepId: string | null;
  onStepMarker: (stepId: string) => void;
};

// One marker per step on the scrubber (memoised: the playhead's time updates, several a second
// while playing, do not re-render thousands of markers).
const StepMarkers = memo(function StepMarkers({
  steps,
  startMs,
  durationSec,
  selectedStepId,
  onStepMarker,
}: StepMarkersProps) {
  return steps.map((s) => {
    const t = stepVideoTimeSec(s, startMs);
    return (
      <button
        key={s.id}
        type="button"
        tabIndex={-1}
        className={`step-marker${s.id === selectedStepId ? ' is-selected' : ''}`}
        style={{ left: scrubberPct(t, durationSec) }}
        title={`Step ${s.index + 1}: ${s.label || s.kind} (${formatClockSec(t)})`}
        onClick={() => onStepMarker(s.id)}
      />
    );
  });
});

// The synchronised video player.
export function VideoPlayer({
  recording,
  selectedStepId,
  onTime,
  onStepMarker,
  onReady,
  onTrim,
  ref,
}: VideoPlayerProps) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const [currentSec, setCurrentSec] = useState(0);
  const [isPlaying, setPlaying] = useState(false);
  const [rate, setRate] = useState(1);
  const [failed, setFailed] = useState<string | null>(null);
  const [intrinsic, setIntrinsic] = useState<VideoSize | null>(null);
  const video = recording.video;
  const durationSec = video ? video.durationMs / 1000 : 0;
  const startMs = video?.startMs ?? 0;

  useImperativeHandle(
    ref,
    () => ({
      seek: (sec) => {
        const el = videoRef.current;
        if (el) {
          el.currentTime = Math.min(Math.max(0, sec), durationSec || sec);
          setCurrentSec(el.currentTime);
        }
      },
      togglePlay: () => {
        const el = videoRef.current;
        if (!el) {
          return;
        }
        if (el.paused) {
          void el.play();
        } else {
          el.pause();
        }
      },
    }),
    [durationSec],
  );

  // the pixel redactions drawn over the picture, read again whenever the edit log moves
  const recordingId = recording.id;
  const editVersion = recording.editVersion;
  useEffect(() => {
    void useRedactionStore.getState().load(recordingId, editVersion);
  }, [recordingId, editVersion]);
  // a draft box of another recording is dropped
  useEffect(() => () => useRedactionStore.getState().cancelDrawing(), [recordingId]);

  if (!video) {
    return <div className="video-player video-missing">This recording has no video.</div>;
  }

  const pct = (sec: number) => scrubberPct(sec, durationSec);
  const trimStartSec =
    recording.trim.startMs === null ? null : recordingMsToVideoSec(recording.trim.startMs, startMs);
  const trimEndSec =
    recording.trim.endMs === null ? null : recordingMsToVideoSec(recording.trim.endMs, startMs);
  const playheadMs = videoSecToRecordingMs(currentSec, startMs);

  return (
    <div className="video-player" data-testid="video-player">
      <div className="video-frame">
        <video
          ref={videoRef}
          src={video.url}
          preload="metadata"
          playsInline
          onClick={() => {
            const el = videoRef.current;
            if (el) {
              if (el.paused) {
                void el.play();
              } else {
                el.pause();
              }
            }
          }}
          onTimeUpdate={(e) => {
            const t = e.currentTarget.currentTime;
            setCurrentSec(t);
            onTime(t, !e.currentTarget.paused);
          }}
          onLoadedMetadata={(e) => {
            const el = e.currentTarget;
            setIntrinsic({ width: el.videoWidth, height: el.videoHeight });
            onReady?.();
          }}
          onPlay={() => setPlaying(true)}
          onPause={() => setPlaying(false)}
          onError={() => setFailed('The video could not be loaded.')}
          data-testid="video"
        />
        <RedactionLayer
          videoRef={videoRef}
          video={video}
          intrinsic={intrinsic}
          currentSec={currentSec}
        />
        {failed && <div className="video-error">{failed}</div>}
      </div>
      <div className="video-controls">
        <button
          type="button"
          className="btn btn-icon"
          aria-label={isPlaying ? 'Pause (Space)' : 'Play (Space)'}
          title={isPlaying ? 'Pause (Space)' : 'Play (Space)'}
          onClick={() => {
            const el = videoRef.current;
            if (el) {
              if (el.paused) {
                void el.play();
              } else {
                el.pause();
              }
            }
          }}
          data-testid="play-toggle"
        >
          {isPlaying ? '❚❚' : '▶'}
        </button>
        <span className="video-time mono">
          {formatClockSec(currentSec)} / {formatClockSec(durationSec)}
        </span>
        <div className="scrubber">
          {trimStartSec !== null && trimStartSec > 0 && (
            <div className="trim-shade" style={{ left: 0, width: pct(trimStartSec) }} />
          )}
          {trimEndSec !== null && trimEndSec < durationSec && (
            <div className="trim-shade" style={{ left: pct(trimEndSec), right: 0 }} />
          )}
          <StepMarkers
            steps={recording.steps}
            startMs={startMs}
            durationSec={durationSec}
            selectedStepId={selectedStepId}
            onStepMarker={onStepMarker}
          />
          <input
            type="range"
            className="scrub-range"
            min={0}
            max={durationSec || 0}
            step={0.05}
            value={Math.min(currentSec, durationSec)}
            aria-label="Playhead"
            onChange={(e) => {
              const el = videoRef.current;
              if (el) {
                el.currentTime = Number(e.target.value);
                setCurrentSec(el.currentTime);
              }
            }}
          />
        </div>
        <select
          className="input input-small"
          aria-label="Playback speed"
          value={rate}
          onChange={(e) => {
            const r = Number(e.target.value);
            setRate(r);
            if (videoRef.current) {
              videoRef.current.playbackRate = r;
            }
          }}
        >
          {[0.5, 1, 1.5, 2, 4].map((r) => (
            <option key={r} value={r}>
              {r}×
            </option>
          ))}
        </select>
      </div>
      <div className="trim-controls">
        <span className="muted">Trim</span>
        <button
          type="button"
          className="btn btn-small"
          onClick={() => onTrim(playheadMs, recording.trim.endMs)}
          title="Leave out everything before the playhead from exports (steps, video, events); the recording keeps it"
        >
          Start at playhead
        </button>
        <button
          type="button"
          className="btn btn-small"
          onClick={() => onTrim(recording.trim.startMs, playheadMs)}
          title="Leave out everything after the playhead from exports (steps, video, events); the recording keeps it"
        >
          End at playhead
        </button>
        <span className="trim-range mono">
          {trimStartSec === null ? 'start' : formatClockSec(trimStartSec)} –{' '}
          {trimEndSec === null ? 'end' : formatClockSec(trimEndSec)}
        </span>
        {(recording.trim.startMs !== null || recording.trim.endMs !== null) && (
          <button
            type="button"
            className="btn btn-ghost btn-small"
            onClick={() => onTrim(null, null)}
          >
            Clear trim
          </button>
        )}
        <span className="trim-note muted" data-testid="trim-note">
          Trimmed parts are left out of exports; the recording itself is kept.
        </span>
      </div>
      <RedactAreaControls recordingId={recording.id} video={video} currentSec={currentSec} />
    </div>
  );
}
