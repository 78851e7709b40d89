// `GET|HEAD /media/<recordingId>/video[/<file>]` and `/media/<recordingId>/keyframe/<file>.png`:
// recording files through the services' resolveMedia, byte ranges for seeking. Never a file outside the library.
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { MediaKind } from '../services/context';
import type { Services } from '../services/create-services';
import { decideRange } from './range';
import { sendError } from './respond';

const CONTENT_TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.webm': 'video/webm',
  '.mkv': 'video/x-matroska',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
};

// The URL path of a recording's video or keyframe (what ServiceContext.mediaUrl returns).
export function mediaPath(recordingId: string, kind: MediaKind, name?: string): string {
  const base = `/media/${encodeURIComponent(recordingId)}/${kind}`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

/** A parsed media request. */
export type MediaRequest = { recordingId: string; kind: MediaKind; name?: string };

// Parses the raw (undecoded) path of a /media request. Each segment is decoded on its own, and a
// segment that decodes to a separator, `.`/`..` or a NUL is refused: "bad" (400); a path of the
// wrong shape is "missing" (404).
export function parseMediaPath(rawPath: string): MediaRequest | 'bad' | 'missing' {
  const raw = rawPath.split('/');
  if (raw[0] !== '' || raw[1] !== 'media') {
    return 'missing';
  }
  const segments: string[] = [];
  for (const s of raw.slice(2)) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(s);
    } catch {
      return 'bad';
    }
    if (decoded === '' || decoded === '.' || decoded === '..' || /[/\\\0]/.test(decoded)) {
      return 'bad';
    }
    segments.push(decoded);
  }
  const [recordingId, kind, name, ...rest] = segments;
  if (!recordingId || rest.length) {
    return 'missing';
  }
  if (kind === 'video') {
    // `/media/<id>/video` is the first video; `/media/<id>/video/<file>` names one
    return name === undefined ? { recordingId, kind } : { recordingId, kind, name };
  }
  if (kind === 'keyframe' && name !== undefined && name.toLowerCase().endsWith('.png')) {
    return { recordingId, kind, name };
  }
  return 'missing';
}

// True when `file` (after resolving symlinks) lies inside the library folder.
function insideLibrary(libraryDir: string, file: string): boolean {
  try {
    const root = fs.realpathSync(libraryDir);
    const real = fs.realpathSync(file);
    return real.startsWith(root + path.sep);
  } catch {
    return false;
  }
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
  const file = services.resolveMedia(parsed.recordingId, parsed.kind, parsed.name);
  // defence in depth: even a resolver bug must not serve a file outside the library
  if (file === null || !insideLibrary(services.lib.dir, file)) {
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
    'Content-Type': CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
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
