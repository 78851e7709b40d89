// What every contract handler gets: the host-provided parts (library, events, media URLs, version,
// log) and the long-lived parts the composition root owns (src/services/create-services.ts).
// Hosts build it only through createServices().
import type { ApiEvent, ApiEvents, SystemHealthDto } from '../shared/contract';
import type { Library } from './library/library';
import type { RecorderService } from './recording/recorder-service';
import type { KeyframeJobs } from './keyframes/keyframe-jobs';
import type { ReplayJobs } from './quality/replay-jobs';
import type { SettingsHost } from './settings/settings-service';
import type { TeamService } from './team/team-service';
import type { UploadService } from './upload/ui-service';

/** A media file kind the hosts serve. */
export type { MediaKind } from '../shared/http/media-route';
import type { MediaKind } from '../shared/http/media-route';

/** One retrying write per database at a time: the others wait on this chain (dispatch.ts). */
export type WriteQueue = { tail: Promise<void> };

/** The context of one services instance (one library, one host). */
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
  /** The library's uploads (queue and background runner). */
  uploads: UploadService;
  /** The library's keyframe job runner (stored keyframes computed in the background). */
  keyframes: KeyframeJobs;
  /** The library's replays from the review UI (one at a time, docs/replay.md §6). */
  replay: ReplayJobs;
  /** The dispatcher's queue of writes waiting for another process's lock. */
  writeQueue: WriteQueue;
  /** The recorder the `recorder:*` methods drive (one recording at a time). */
  recorder: RecorderService;
  /** What the host adds to the settings: its secret store for upload credentials (Electron's
   * safeStorage; null: none) and how it switches the library folder (null: it cannot). */
  settingsHost: SettingsHost;
  /** Environment (DISPLAY, AWS_*…) for the machine checks. */
  env: NodeJS.ProcessEnv;
  /** The host's own health checks (macOS permissions, Windows DPI), after the doctor's. */
  hostHealthChecks: () => SystemHealthDto['checks'];
  /** The team client (sign-in, submits kept while the hub is away, the review queue). */
  team: TeamService;
};
