// A file as a fetch Response for the app's protocol handlers: content type, security headers and
// single byte ranges (video elements seek with `Range: bytes=a-b`). The caller has already
// decided that the file may be served.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.webm': 'video/webm',
  '.mkv': 'video/x-matroska',
};

/** The content type of `file` by its extension (application/octet-stream when unknown). */
export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** A byte range to send: the whole file, one part, or none that fits. */
export type ByteRange =
  { kind: 'whole' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

// Decides what a Range header asks of a file of `size` bytes: only one `bytes=` range is
// honoured; anything else (several ranges, other units, garbage) gets the whole file.
export function decideByteRange(header: string | null, size: number): ByteRange {
  const m = header === null ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) {
    return { kind: 'whole' };
  }
  const [, from = '', to = ''] = m;
  let start: number;
  let end: number;
  if (from === '') {
    // suffix range: the last N bytes
    const suffix = Number(to);
    if (suffix === 0) {
      return { kind: 'unsatisfiable' };
    }
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(from);
    end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  }
  if (start >= size || end < start) {
    return { kind: 'unsatisfiable' };
  }
  return { kind: 'partial', start, end };
}

/** A JSON error response with the Result envelope's error shape. */
export function errorResponse(status: number, code: string, message: string): Response {
  return new Response(JSON.stringify({ ok: false, error: { code, message } }), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' },
  });
}

/** Options of {@link fileResponse}. */
export type FileResponseOptions = {
  /** Extra headers (CSP, cache policy). */
  headers?: Record<string, string>;
};

// Answers `request` (GET or HEAD) with `file`, honouring one byte range.
export async function fileResponse(
  request: Request,
  file: string,
  options: FileResponseOptions = {},
): Promise<Response> {
  const stat = await fs.promises.stat(file);
  const size = stat.size;
  const headers: Record<string, string> = {
    'Content-Type': contentTypeOf(file),
    'Accept-Ranges': 'bytes',
    'X-Content-Type-Options': 'nosniff',
    ...options.headers,
  };
  const range = decideByteRange(request.headers.get('range'), size);
  if (range.kind === 'unsatisfiable') {
    return new Response(null, { status: 416, headers: { 'Content-Range': `bytes */${size}` } });
  }
  const start = range.kind === 'partial' ? range.start : 0;
  const end = range.kind === 'partial' ? range.end : size - 1;
  headers['Content-Length'] = String(size === 0 ? 0 : end - start + 1);
  if (range.kind === 'partial') {
    headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
  }
  const status = range.kind === 'partial' ? 206 : 200;
  if (request.method === 'HEAD' || size === 0) {
    return new Response(null, { status, headers });
  }
  const body = Readable.toWeb(fs.createReadStream(file, { start, end })) as ReadableStream;
  return new Response(body, { status, headers });
}
