// Response helpers: security headers on every answer, Result-envelope JSON errors.
import type http from 'node:http';
import type { ErrorCode } from '../shared/errors';
import type { ResultError } from '../shared/result';

/** Content-Security-Policy of every response (the renderer loads nothing from elsewhere). */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; media-src 'self' blob:; img-src 'self' data: blob:; " +
  "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

// Sets the headers every response carries. Deliberately no Access-Control-* (CORS) headers:
// other origins must not read anything from this server.
export function setSecurityHeaders(res: http.ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  // the launch URL carries the token: never leak it through Referer
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
}

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

// Sends a small HTML page (used for the not-built and bad-token pages).
export function sendHtml(res: http.ServerResponse, status: number, title: string, body: string) {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
    `<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">` +
    `<h1>${title}</h1>${body}</body></html>`;
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(html),
    'Cache-Control': 'no-store',
  });
  res.end(res.req.method === 'HEAD' ? undefined : html);
}
