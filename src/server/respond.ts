// Response helpers: security headers on every answer, Result-envelope JSON errors.
import type http from 'node:http';
import type { ErrorCode } from '../shared/errors';
import type { ResultError } from '../shared/result';

// the headers and the page policy are shared with the team hub, which serves the same renderer
export { CONTENT_SECURITY_POLICY, setSecurityHeaders } from '../infra/http/security-headers';
export { sendHtml } from '../infra/http/static-files';

// Sends a JSON body (any value) with the given status.
export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

// Sends `{ ok: false, error }` with the given status.
export function sendError(
  res: http.ServerResponse,
  status: number,
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
  headers: Record<string, string> = {},
): void {
  const error: ResultError = details ? { code, message, details } : { code, message };
  sendJson(res, status, { ok: false, error }, headers);
}
