// A file as a fetch Response for the app's protocol handlers: content type, security headers and
// single byte ranges (video elements seek with `Range: bytes=a-b`). The caller has already
// decided that the file may be served.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { contentTypeOf } from '../shared/http/media-route';
import { decideRange } from '../shared/http/range';

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
  const range = decideRange(request.headers.get('range') ?? undefined, size);
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
