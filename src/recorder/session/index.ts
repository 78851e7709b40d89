// The recording session (docs/architecture.md §5 "Sessions"): the state machine in
// recording-session.ts over four tracks (video, input, accessibility, active window). Importers
// take the public API from here.
export { RecordingSession } from './recording-session';
export type {
  AppPressCheck,
  GesturePress,
  RecordingSessionOptions,
  RecordingSink,
  SessionMark,
  SessionResult,
  SessionState,
  SessionStats,
  VideoSegment,
} from './types';
export { APP_GESTURE_WINDOW_MS, EXCLUSION_TIMELINE_LAG_MS, exclusionWaitMs } from './input-track';
export { DEFAULT_HOVER_SETTLE_MS, pickClickedElement } from './accessibility-track';
