// What both hosts that serve files share (the browser host's /media routes and static files,
// the desktop app's cua-media:// and cua-app:// protocols): the parse of a media path, checked
// segment by segment so no path can leave its folder, and content types by file extension.

/** A media file kind the hosts serve. */
export type MediaKind = 'video' | 'keyframe' | 'replay';

/** A parsed media request (a replay file's `name` is `<run id>/<file>.png`). */
export type MediaRequest = { recordingId: string; kind: MediaKind; name?: string };

/**
 * Parses the raw (still percent-encoded) segments after the media root: `<id>/video[/<file>]`,
 * `<id>/keyframe/<file>.png` or `<id>/replay/<run id>/<file>.png` (a replay's screenshot,
 * docs/replay.md §6). Each segment is decoded on its own; one that decodes to a
 * separator, `.`/`..`, NUL or nothing is "bad"; a wrong shape is "missing".
 */
export function parseMediaSegments(
  rawSegments: readonly string[],
): MediaRequest | 'bad' | 'missing' {
  const segments: string[] = [];
  for (const raw of rawSegments) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return 'bad';
    }
    if (decoded === '' || decoded === '.' || decoded === '..' || /[/\\\0]/.test(decoded)) {
      return 'bad';
    }
    segments.push(decoded);
  }
  if (segments[1] === 'replay') {
    const [recordingId, , run, file, ...more] = segments;
    return recordingId && run && file && more.length === 0 && file.toLowerCase().endsWith('.png')
      ? { recordingId, kind: 'replay', name: `${run}/${file}` }
      : 'missing';
  }
  const [recordingId, kind, name, ...rest] = segments;
  if (!recordingId || rest.length > 0) {
    return 'missing';
  }
  if (kind === 'video') {
    // `<id>/video` is the first video; `<id>/video/<file>` names one
    return name === undefined ? { recordingId, kind } : { recordingId, kind, name };
  }
  if (kind === 'keyframe' && name !== undefined && name.toLowerCase().endsWith('.png')) {
    return { recordingId, kind, name };
  }
  return 'missing';
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.webm': 'video/webm',
  '.mkv': 'video/x-matroska',
};

/** The content type of a file by its extension (application/octet-stream when unknown). */
export function contentTypeOf(fileName: string): string {
  const base = fileName.slice(Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return (dot > 0 && CONTENT_TYPES[base.slice(dot).toLowerCase()]) || 'application/octet-stream';
}
