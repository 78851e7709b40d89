// The `cua-media://` protocol: a recording's video and keyframes for the renderer, through the
// services' resolveMedia like the browser host's /media routes (src/server/media.ts), and never
// a file outside the library: each URL segment is decoded alone and may not be empty, `.`, `..`
// or hold a separator or NUL, and the resolved file's real path (symlinks followed) must lie
// inside the library's real path.
import { parseMediaSegments, type MediaKind, type MediaRequest } from '../shared/http/media-route';
import { realFileInside } from '../infra/file-inside';
import { errorResponse, fileResponse } from './file-response';
import { MEDIA_HOST, MEDIA_ORIGIN, MEDIA_SCHEME } from './schemes';

/** The URL of a recording's media (what ServiceContext.mediaUrl returns in the app). */
export function mediaUrl(recordingId: string, kind: MediaKind, name?: string): string {
  const base = `${MEDIA_ORIGIN}/${encodeURIComponent(recordingId)}/${kind}`;
  // a replay file's name is `<run id>/<file>`: one URL segment each
  return name === undefined ? base : `${base}/${name.split('/').map(encodeURIComponent).join('/')}`;
}

// Parses a media URL: 'bad' for a malformed or dangerous one, 'missing' for a wrong shape.
export function parseMediaUrl(url: string): MediaRequest | 'bad' | 'missing' {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'bad';
  }
  if (parsed.protocol !== `${MEDIA_SCHEME}:` || parsed.host !== MEDIA_HOST) {
    return 'bad';
  }
  if (parsed.search !== '' || parsed.username !== '' || parsed.password !== '') {
    return 'bad';
  }
  // the pathname keeps percent-escapes: `%2F` stays inside its segment until decoded there
  return parseMediaSegments(parsed.pathname.split('/').slice(1));
}

/** What the media handler needs of the services. */
export type MediaSource = {
  /** The library folder: nothing outside it is served. */
  libraryDir: string;
  /** The services' resolveMedia: the file behind a media request, or null. */
  resolveMedia: (recordingId: string, kind: MediaKind, name?: string) => string | null;
};

// The protocol.handle handler of `cua-media://`: GET/HEAD only, 400 for a malformed or
// dangerous URL, 404 for anything that does not resolve to a file inside the library.
export function createMediaHandler(source: MediaSource): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return errorResponse(405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed on media`);
    }
    const parsed = parseMediaUrl(request.url);
    if (parsed === 'bad') {
      return errorResponse(400, 'INVALID_PAYLOAD', 'Malformed media URL');
    }
    if (parsed === 'missing') {
      return errorResponse(404, 'NOT_FOUND', 'No such media');
    }
    const resolved = source.resolveMedia(parsed.recordingId, parsed.kind, parsed.name);
    // defence in depth: even a resolver bug must not serve a file outside the library
    const file = resolved === null ? null : realFileInside(source.libraryDir, resolved);
    if (file === null) {
      return errorResponse(404, 'NOT_FOUND', 'No such media');
    }
    try {
      return await fileResponse(request, file, {
        // keyframes can be recomputed under the same name: revalidate
        headers: { 'Cache-Control': 'no-cache', 'Cross-Origin-Resource-Policy': 'cross-origin' },
      });
    } catch {
      return errorResponse(404, 'NOT_FOUND', 'No such media');
    }
  };
}
