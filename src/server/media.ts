// `GET|HEAD /media/<recordingId>/video[/<file>]` and `/media/<recordingId>/keyframe/<file>.png`:
// recording files through the services' resolveMedia, byte ranges for seeking. Never a file outside the library.
import fs from 'node:fs';
import type http from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { MediaKind } from '../shared/http/media-route';
import type { Services } from '../services/create-services';
import { realFileInside } from '../infra/file-inside';
import { decideRange } from '../shared/http/range';
import { contentTypeOf, parseMediaSegments, type MediaRequest } from '../shared/http/media-route';
import { sendError } from './respond';

// The URL path of a recording's video or keyframe (what ServiceContext.mediaUrl returns).
export function mediaPath(recordingId: string, kind: MediaKind, name?: string): string {
  const base = `/media/${encodeURIComponent(recordingId)}/${kind}`;
  // a replay file's name is `<run id>/<file>`: one URL segment each
  return name === undefined ? base : `${base}/${name.split('/').map(encodeURIComponent).join('/')}`;
}

// Parses the raw (undecoded) path of a /media request: "bad" (400) for a segment that decodes to
// a separator, `.`/`..` or NUL, "missing" (404) for a wrong shape (src/shared/http/media-route.ts).
export function parseMediaPath(rawPath: string): MediaRequest | 'bad' | 'missing' {
  const raw = rawPath.split('/');
  if (raw[0] !== '' || raw[1] !== 'media') {
    return 'missing';
  }
  return parseMediaSegments(raw.slice(2));
}

// Answers one authorised /media request (GET or HEAD).
export async function serveMedia(
  services: Services,
  rawPath: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendError(res, 405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on media`, undefined, {
      Allow: 'GET, HEAD',
    });
    return;
  }
  const parsed = parseMediaPath(rawPath);
  if (parsed === 'bad') {
    sendError(res, 400, 'INVALID_PAYLOAD', 'Malformed media path');
    return;
  }
  if (parsed === 'missing') {
    sendError(res, 404, 'NOT_FOUND', 'No such media');
    return;
  }
  const resolved = services.resolveMedia(parsed.recordingId, parsed.kind, parsed.name);
  // defence in depth: even a resolver bug must not serve a file outside the library
  const file = resolved === null ? null : realFileInside(services.lib.dir, resolved);
  if (file === null) {
    sendError(res, 404, 'NOT_FOUND', 'No such media', { recordingId: parsed.recordingId });
    return;
  }
  let stat: fs.Stats | null;
  try {
    stat = await fs.promises.stat(file);
  } catch {
    stat = null;
  }
  if (stat === null || !stat.isFile()) {
    sendError(res, 404, 'NOT_FOUND', 'No such media', { recordingId: parsed.recordingId });
    return;
  }
  const size = stat.size;
  const etag = `"${size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
  const headers: Record<string, string | number> = {
    'Content-Type': contentTypeOf(file),
    'Accept-Ranges': 'bytes',
    // private data behind a token; keyframes can be recomputed under the same name: revalidate
    'Cache-Control': 'private, no-cache',
    ETag: etag,
    'Last-Modified': stat.mtime.toUTCString(),
  };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  // If-Range with a stale validator: send the whole file
  const ifRange = req.headers['if-range'];
  const rangeHeader = ifRange === undefined || ifRange === etag ? req.headers.range : undefined;
  const range = decideRange(rangeHeader, size);
  if (range.kind === 'unsatisfiable') {
    sendError(
      res,
      416,
      'INVALID_PAYLOAD',
      `Range ${String(rangeHeader)} is outside the file`,
      {
        sizeBytes: size,
      },
      { 'Content-Range': `bytes */${size}` },
    );
    return;
  }
  const start = range.kind === 'partial' ? range.start : 0;
  const end = range.kind === 'partial' ? range.end : size - 1;
  headers['Content-Length'] = size === 0 ? 0 : end - start + 1;
  if (range.kind === 'partial') {
    headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
  }
  res.writeHead(range.kind === 'partial' ? 206 : 200, headers);
  if (req.method === 'HEAD' || size === 0) {
    res.end();
    return;
  }
  try {
    await pipeline(fs.createReadStream(file, { start, end }), res);
  } catch {
    // the client went away mid-transfer (seeking closes video requests): nothing to answer
    res.destroy();
  }
}
