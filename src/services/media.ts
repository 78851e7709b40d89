// Resolves a media request (a recording's video, one of its keyframe PNGs or a replay's
// screenshot) to a file, refusing anything that is not a plain file inside that recording's
// folder. Hosts serve only what this returns (HTTP media route, Electron media protocol).
import fs from 'node:fs';
import path from 'node:path';
import { findRecordingBasics, listVideos } from '../store';
import type { MediaKind } from './context';
import type { Library } from './library/library';
import { KEYFRAMES_DIR } from './keyframes/keyframes';

/** Folder (inside a recording's folder) of replay runs (`REPLAY_DIR` of
 * quality/replay-service.ts, which loads the replay driver: not imported here). */
const REPLAY_DIR = 'replay';

/** Longest accepted file name (bytes of most file systems). */
const MAX_NAME_LENGTH = 255;

/** True for a plain file name: no separators, no `.`/`..`, no NUL or control characters. */
export function isPlainFileName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= MAX_NAME_LENGTH &&
    name !== '.' &&
    name !== '..' &&
    // eslint-disable-next-line no-control-regex -- control characters never name our files
    !/[/\\\u0000-\u001f\u007f]/.test(name)
  );
}

/** The real path of `file` when it is a regular file strictly inside `folder`, else null. */
function fileInside(folder: string, file: string): string | null {
  try {
    const root = fs.realpathSync(folder);
    const real = fs.realpathSync(file);
    if (!real.startsWith(root + path.sep) || !fs.statSync(real).isFile()) {
      return null;
    }
    return real;
  } catch {
    return null;
  }
}

// The absolute path of a recording's video (`name` = one of its video file names, default the
// first) or keyframe `name`; null for unknown recordings, odd names and anything outside.
export function resolveMedia(
  lib: Library,
  recordingId: string,
  kind: MediaKind,
  name?: string,
): string | null {
  if (typeof recordingId !== 'string' || !isPlainFileName(recordingId)) {
    return null;
  }
  // a replay file is named `<run id>/<file>` (docs/replay.md §6): each part a plain name
  const parts = kind === 'replay' && typeof name === 'string' ? name.split('/') : [name];
  if (
    name !== undefined &&
    (typeof name !== 'string' || !parts.every((p) => p !== undefined && isPlainFileName(p)))
  ) {
    return null;
  }
  const rec = findRecordingBasics(lib.db, recordingId);
  if (!rec) {
    return null;
  }
  let folder: string;
  try {
    folder = lib.resolve(rec.dir);
  } catch {
    return null;
  }
  if (kind === 'video') {
    const videos = listVideos(lib.db, rec.seq);
    const video =
      name === undefined ? videos[0] : videos.find((v) => path.posix.basename(v.path) === name);
    if (!video) {
      return null;
    }
    try {
      return fileInside(folder, lib.resolve(video.path));
    } catch {
      return null;
    }
  }
  if (kind === 'keyframe' && name !== undefined) {
    return fileInside(folder, path.join(folder, KEYFRAMES_DIR, name));
  }
  const [run, file] = parts;
  if (kind === 'replay' && parts.length === 2 && run && file?.toLowerCase().endsWith('.png')) {
    return fileInside(path.join(folder, REPLAY_DIR), path.join(folder, REPLAY_DIR, run, file));
  }
  return null;
}
