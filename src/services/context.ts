// What every contract handler gets from its host (CLI server, Electron main, tests).
import type { ApiEvent, ApiEvents } from '../shared/contract';
import type { Library } from './library/library';

/** A media file kind the hosts serve. */
export type MediaKind = 'video' | 'keyframe';

/** The host-provided context of one service instance. */
export type ServiceContext = {
  /** The open library. */
  lib: Library;
  /** Pushes a contract event to every connected view. */
  emit: <E extends ApiEvent>(event: E, payload: ApiEvents[E]) => void;
  /** URL under which the host serves a recording's video or a keyframe file (by file name). */
  mediaUrl: (recordingId: string, kind: MediaKind, name?: string) => string;
  /** Version written into exports' provenance. */
  appVersion: string;
  /** Diagnostic log (internal error stacks); default: standard error. */
  log?: (line: string) => void;
};
