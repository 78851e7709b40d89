// The security headers of every answer of both HTTP hosts (`serve`, src/server, and the team
// hub, src/hub/http), which serve the same built renderer: one policy, written once.
import type http from 'node:http';

/** Content-Security-Policy of every response (the renderer loads nothing from elsewhere; React
 * sets style attributes; media and images may come from blob: URLs). */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; media-src 'self' blob:; img-src 'self' data: blob:; " +
  "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Options of {@link setSecurityHeaders}. */
export type SecurityHeaderOptions = {
  /** Served over HTTPS (directly or behind a TLS proxy): add Strict-Transport-Security. */
  https?: boolean;
};

// Sets the headers every response carries. Deliberately no Access-Control-* (CORS) headers:
// other origins must not read anything from these servers.
export function setSecurityHeaders(
  res: http.ServerResponse,
  options: SecurityHeaderOptions = {},
): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  // serve's launch URL carries a token, the hub's pages their own data: never leak through Referer
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  if (options.https) {
    res.setHeader('Strict-Transport-Security', 'max-age=31536000');
  }
}
